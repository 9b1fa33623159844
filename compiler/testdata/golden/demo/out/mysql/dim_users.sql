-- unit dim_users  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
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
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('dim_users', '', 'analytics', 'dim_users', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '573dd4e99f6c0b4d', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1814e76b7cc89b123a67af08', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'dim_users', '', 'running', NULL, <started_at>, NULL, <attempt>, '573dd4e99f6c0b4d', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1814e76b7cc89b123a67af08', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`dim_users`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.dim_users')
SELECT GET_LOCK('idemc:analytics.dim_users', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `dim_users__idemc_stage` AS
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `dim_users__idemc_stage`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`dim_users` AS t
JOIN `dim_users__idemc_stage` AS s ON t.`user_id` <=> s.`user_id`
SET t.`name` = s.`name`, t.`country` = s.`country`, t.`updated_at` = s.`updated_at`;
-- 9. merge: insert the batch's new keys
INSERT INTO `analytics`.`dim_users` (`user_id`, `name`, `country`, `updated_at`, `first_loaded_by`)
SELECT s.`user_id`, s.`name`, s.`country`, s.`updated_at`, s.`first_loaded_by` FROM `dim_users__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`dim_users` AS t WHERE t.`user_id` <=> s.`user_id`);
-- 10. check: check accepted_values(country) (error)
SELECT t.`country`, count(*) AS n FROM `analytics`.`dim_users` AS t
WHERE (EXISTS (SELECT 1 FROM `dim_users__idemc_stage` AS s WHERE t.`user_id` <=> s.`user_id`)) AND t.`country` IS NOT NULL AND t.`country` NOT IN ('DE', 'FR', 'US', 'JP')
GROUP BY t.`country`
LIMIT 5;
-- 11. check: check not_null(user_id) (error)
SELECT * FROM `analytics`.`dim_users` AS t
WHERE (EXISTS (SELECT 1 FROM `dim_users__idemc_stage` AS s WHERE t.`user_id` <=> s.`user_id`)) AND (t.`user_id` IS NULL)
LIMIT 5;
-- 12. check: check unique(user_id) (error)
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`dim_users` AS t
WHERE EXISTS (SELECT 1 FROM `dim_users__idemc_stage` AS s WHERE t.`user_id` <=> s.`user_id`)
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5;
-- 13. state: forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'dim_users' AND EXISTS (SELECT 1 FROM `dim_users__idemc_stage` WHERE `updated_at` IS NOT NULL);
-- 14. state: record the batch's maximum updated_at
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'dim_users', CAST(max(`updated_at`) AS CHAR), 'r1', NULL FROM `dim_users__idemc_stage` HAVING max(`updated_at`) IS NOT NULL;
-- 15. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `dim_users__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'dim_users' AND partition_key = '';
-- 16. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'dim_users' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'dim_users' AND run_id = 'r1';
-- 17. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `dim_users__idemc_stage`;
-- 18. commit
COMMIT;
-- 19. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.dim_users');
