-- unit event_log  partition -  (incremental append)
-- 1. prepare: label this unit's jobs (run id, model, partition, attempt); job ids derive from them
SET @@query_label = 'idemc_attempt:0,idemc_model:event_log,idemc_run:r1';
-- 2. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`event_log` AS
SELECT * FROM (
SELECT event_id, event_at, kind FROM `raw`.`events`
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '13ef8ca8e2c1de73', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7ced13d2d57425814d6bf3aa', 'r:r1');
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
/* idemc: job=stage */
CREATE OR REPLACE TABLE `analytics`.`event_log__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT event_id, event_at, kind FROM `raw`.`events`;
-- 5. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 6. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO `analytics`.`event_log` (`event_id`, `event_at`, `kind`)
SELECT `event_id`, `event_at`, `kind` FROM `analytics`.`event_log__idemc_stage_0c53fdac`;
-- 7. audit_finish: record success, in the script transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 8. state: the audit row's row_count, counted inside the script transaction
UPDATE `analytics`.`idemc_audit` SET row_count = (SELECT count(*) FROM `analytics`.`event_log__idemc_stage_0c53fdac`)
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- 10. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`event_log__idemc_stage_0c53fdac`;
