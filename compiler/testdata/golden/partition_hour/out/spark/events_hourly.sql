-- unit events_hourly  partition 2026-07-02T13  (incremental delete_insert)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_hourly` USING DELTA AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, '9137b58c42f15db2', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '622737e4d54ca722e377b998', 'r:r1');
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events_hourly__idemc_stage_2026070213_0c53fdac` USING DELTA AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE (`event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND `event_at` < TIMESTAMP '2026-07-02 14:00:00') OR `event_at` IS NULL;
-- 4. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_hourly__idemc_stage_2026070213_0c53fdac`
WHERE `event_at` IS NULL
HAVING count(*) > 0;
-- 5. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.events_hourly:2026-07-02T13;
-- 6. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 7. insert: replace the partition window 2026-07-02T13 in one Delta commit
INSERT INTO `analytics`.`events_hourly`
REPLACE WHERE `event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND `event_at` < TIMESTAMP '2026-07-02 14:00:00'
SELECT `event_id`, `event_at`, `kind` FROM `analytics`.`events_hourly__idemc_stage_2026070213_0c53fdac`;
-- 8. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 9. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 10. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`events_hourly__idemc_stage_2026070213_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_hourly', '2026-07-02T13', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '9137b58c42f15db2', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '622737e4d54ca722e377b998', 'r:r1';
-- 11. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`events_hourly__idemc_stage_2026070213_0c53fdac`;
