-- unit customers  partition -  (incremental merge)
-- 1. prepare: label this unit's jobs (run id, model, partition, attempt); job ids derive from them
SET @@query_label = 'idemc_attempt:0,idemc_model:customers,idemc_run:r1';
-- 2. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`customers` AS
SELECT * FROM (
SELECT user_id, name, country, created_at
FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, 'd3eecef11b5ff7d2', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1684e33cd48e0fbf1cfcf711', 'r:r1');
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
/* idemc: job=stage */
CREATE OR REPLACE TABLE `analytics`.`customers__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT user_id, name, country, created_at
FROM `raw`.`users`;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`customers__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. merge: update matched keys, insert new ones (null-safe)
MERGE INTO `analytics`.`customers` AS t
USING `analytics`.`customers__idemc_stage_0c53fdac` AS s
ON (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL))
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `country` = s.`country`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `country`, `created_at`) VALUES (s.`user_id`, s.`name`, s.`country`, s.`created_at`);
-- 8. audit_finish: record success, in the script transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 9. state: the audit row's row_count, counted inside the script transaction
UPDATE `analytics`.`idemc_audit` SET row_count = (SELECT count(*) FROM `analytics`.`customers__idemc_stage_0c53fdac`)
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 10. commit: submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- 11. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`customers__idemc_stage_0c53fdac`;
