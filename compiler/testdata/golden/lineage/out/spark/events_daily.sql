-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily` USING DELTA AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '1132b13cce0177f7', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '720cafecf2c47dfc2fe2d851', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`events_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events_daily`/2026-07-02'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` USING DELTA AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL;
-- 5. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`
WHERE `event_date` IS NULL
HAVING count(*) > 0;
-- 6. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.events_daily:2026-07-02;
-- 7. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 8. insert: replace the partition window 2026-07-02 in one Delta commit
INSERT INTO `analytics`.`events_daily`
REPLACE WHERE `event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03'
SELECT `event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of` FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`;
-- 9. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 10. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 11. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_daily', '2026-07-02', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '1132b13cce0177f7', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '720cafecf2c47dfc2fe2d851', 'r:r1';
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1';
