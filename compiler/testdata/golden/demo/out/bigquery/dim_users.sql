-- unit dim_users  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=dim_users,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`dim_users` AS
SELECT * FROM (
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'dim_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'a856d249489c6244', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'df05d5c67604df7face82549', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`dim_users`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`dim_users`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`dim_users`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`dim_users__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`dim_users__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. merge: update matched keys, insert new ones (null-safe)
--    deferred to the script's commit
MERGE INTO `analytics`.`dim_users` AS t
USING `analytics`.`dim_users__idemc_stage_0c53fdac` AS s
ON (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL))
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `country` = s.`country`, `updated_at` = s.`updated_at`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `country`, `updated_at`, `first_loaded_by`) VALUES (s.`user_id`, s.`name`, s.`country`, s.`updated_at`, s.`first_loaded_by`);
-- 8. check: check accepted_values(country) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`country`, count(*) AS n FROM `analytics`.`dim_users` AS t
WHERE (EXISTS (SELECT 1 FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS s WHERE (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL)))) AND t.`country` IS NOT NULL AND t.`country` NOT IN ('DE', 'FR', 'US', 'JP')
GROUP BY t.`country`
LIMIT 5
) AS 'idemc check accepted_values(country)';
-- 9. check: check not_null(user_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`dim_users` AS t
WHERE (EXISTS (SELECT 1 FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS s WHERE (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL)))) AND (t.`user_id` IS NULL)
LIMIT 5
) AS 'idemc check not_null(user_id)';
-- 10. check: check unique(user_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`dim_users` AS t
WHERE EXISTS (SELECT 1 FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS s WHERE (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL)))
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(user_id)';
-- 11. state: forget the old high-water mark if the batch has rows
--    deferred to the script's commit
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'dim_users' AND EXISTS (SELECT 1 FROM `analytics`.`dim_users__idemc_stage_0c53fdac` WHERE `updated_at` IS NOT NULL);
-- 12. state: record the batch's maximum updated_at
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'dim_users', CAST(max(`updated_at`) AS STRING), 'r1', NULL FROM `analytics`.`dim_users__idemc_stage_0c53fdac` HAVING max(`updated_at`) IS NOT NULL;
-- 13. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'dim_users', '', 'succeeded', (SELECT count(*) FROM `analytics`.`dim_users__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, 'a856d249489c6244', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'df05d5c67604df7face82549', 'r:r1';
-- 14. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 15. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`dim_users__idemc_stage_0c53fdac`;
-- 16. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = 'r1';
