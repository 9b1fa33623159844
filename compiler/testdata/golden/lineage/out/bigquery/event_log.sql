-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=event_log,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`event_log` AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind FROM `raw`.`events`
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '4b2319a3383108a0', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '44791f1136731dd48d3b9231', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`event_log`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`event_log`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`event_log`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`event_log__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind FROM `raw`.`events`
) AS idemc_lineage;
-- 5. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 6. insert: append the batch (allow_append: a rerun adds the rows again)
--    deferred to the script's commit
INSERT INTO `analytics`.`event_log` (`event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of`)
SELECT `event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of` FROM `analytics`.`event_log__idemc_stage_0c53fdac`;
-- 7. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'event_log', '', 'succeeded', (SELECT count(*) FROM `analytics`.`event_log__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, '4b2319a3383108a0', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '44791f1136731dd48d3b9231', 'r:r1';
-- 8. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 9. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`event_log__idemc_stage_0c53fdac`;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = 'r1';
