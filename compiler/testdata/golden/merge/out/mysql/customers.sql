-- unit customers  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`customers` AS
SELECT * FROM (
SELECT source_system, user_id, name, country, created_at
FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('customers', '', 'analytics', 'customers', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '6b9a09a417cdca27', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7101c479b74812f54f3a4f94', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, '6b9a09a417cdca27', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7101c479b74812f54f3a4f94', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`customers`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.customers')
SELECT GET_LOCK('idemc:analytics.customers', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `customers__idemc_stage` AS
SELECT source_system, user_id, name, country, created_at
FROM `raw`.`users`;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `source_system`, `user_id`, count(*) AS n FROM `customers__idemc_stage`
GROUP BY `source_system`, `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`customers` AS t
JOIN `customers__idemc_stage` AS s ON t.`source_system` <=> s.`source_system` AND t.`user_id` <=> s.`user_id`
SET t.`name` = s.`name`, t.`country` = s.`country`, t.`created_at` = s.`created_at`;
-- 9. merge: insert the batch's new keys
INSERT INTO `analytics`.`customers` (`source_system`, `user_id`, `name`, `country`, `created_at`)
SELECT s.`source_system`, s.`user_id`, s.`name`, s.`country`, s.`created_at` FROM `customers__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`customers` AS t WHERE t.`source_system` <=> s.`source_system` AND t.`user_id` <=> s.`user_id`);
-- 10. check: check not_null(user_id) (error)
SELECT * FROM `analytics`.`customers` AS t
WHERE (EXISTS (SELECT 1 FROM `customers__idemc_stage` AS s WHERE t.`source_system` <=> s.`source_system` AND t.`user_id` <=> s.`user_id`)) AND (t.`user_id` IS NULL)
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `customers__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'customers' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'customers' AND run_id = 'r1';
-- 13. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `customers__idemc_stage`;
-- 14. commit
COMMIT;
-- 15. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.customers');
