-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`event_log` USING DELTA AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind FROM `raw`.`events`
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '2e9217bb6367d801', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '01b7a4777fdc69a7b04f3d8d', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`event_log`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`event_log`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`event_log`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`event_log__idemc_stage_0c53fdac` USING DELTA AS
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind FROM `raw`.`events`
) AS idemc_lineage;
-- 5. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:analytics.event_log:inputs=01b7a4777fdc69a7b04f3d8d;
-- 6. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 7. insert: append the batch (allow_append: a rerun adds the rows again; a resubmission does not)
INSERT INTO `analytics`.`event_log` (`event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of`)
SELECT `event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of` FROM `analytics`.`event_log__idemc_stage_0c53fdac`;
-- 8. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 9. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 10. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`event_log__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'event_log', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '2e9217bb6367d801', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '01b7a4777fdc69a7b04f3d8d', 'r:r1';
-- 11. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`event_log__idemc_stage_0c53fdac`;
-- 12. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log`' AND run_id = 'r1';
