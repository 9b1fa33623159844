-- unit dim_users  partition -  (incremental merge)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`dim_users` USING DELTA AS
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
VALUES ('r1', 'dim_users', '', 'running', NULL, <started_at>, NULL, <attempt>, '6ea97f7dae073806', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a0bb77ca96da194e27d1b2d7', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`dim_users`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`dim_users`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`dim_users`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`dim_users__idemc_stage_0c53fdac` USING DELTA AS
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
-- 6. check: check accepted_values(country) (error) on the staged batch, before publishing
SELECT t.`country`, count(*) AS n FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS t
WHERE t.`country` IS NOT NULL AND t.`country` NOT IN ('DE', 'FR', 'US', 'JP')
GROUP BY t.`country`
LIMIT 5;
-- 7. check: check not_null(user_id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS t
WHERE (t.`user_id` IS NULL)
LIMIT 5;
-- 8. check: check unique(user_id) (error) on the staged batch, before publishing
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`dim_users__idemc_stage_0c53fdac` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5;
-- 9. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.dim_users;
-- 10. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 11. merge: update matched keys, insert new ones (null-safe <=>), in one Delta commit
MERGE INTO `analytics`.`dim_users` AS t
USING `analytics`.`dim_users__idemc_stage_0c53fdac` AS s
ON t.`user_id` <=> s.`user_id`
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `country` = s.`country`, `updated_at` = s.`updated_at`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `country`, `updated_at`, `first_loaded_by`) VALUES (s.`user_id`, s.`name`, s.`country`, s.`updated_at`, s.`first_loaded_by`);
-- 12. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 13. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 14. state: record the batch's maximum updated_at (an empty batch keeps the old mark)
MERGE INTO `analytics`.`idemc_state` AS t
USING (SELECT 'dim_users' AS job_name, CAST(max(`updated_at`) AS STRING) AS high_water FROM `analytics`.`dim_users__idemc_stage_0c53fdac` HAVING max(`updated_at`) IS NOT NULL) AS s
ON t.job_name = s.job_name
WHEN MATCHED THEN UPDATE SET high_water = s.high_water, run_id = 'r1', updated_at = NULL
WHEN NOT MATCHED THEN INSERT (job_name, high_water, run_id, updated_at) VALUES (s.job_name, s.high_water, 'r1', NULL);
-- 15. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`dim_users__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'dim_users', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '6ea97f7dae073806', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'a0bb77ca96da194e27d1b2d7', 'r:r1';
-- 16. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`dim_users__idemc_stage_0c53fdac`;
-- 17. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`dim_users`' AND run_id = 'r1';
