-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`users_latest` AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_latest', '', 'analytics', 'users_latest', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'd580e6f9f78a8feb', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '313fecd8dbedb9a2ed318ff7', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, 'd580e6f9f78a8feb', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '313fecd8dbedb9a2ed318ff7', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`users_latest`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.users_latest')
SELECT GET_LOCK('idemc:analytics.users_latest', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `users_latest__idemc_stage` AS
SELECT user_id, name, updated_at
FROM `raw`.`users`;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `users_latest__idemc_stage`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`users_latest` AS t
JOIN `users_latest__idemc_stage` AS s ON t.`user_id` <=> s.`user_id`
SET t.`name` = s.`name`, t.`updated_at` = s.`updated_at`;
-- 9. merge: insert the batch's new keys
INSERT INTO `analytics`.`users_latest` (`user_id`, `name`, `updated_at`)
SELECT s.`user_id`, s.`name`, s.`updated_at` FROM `users_latest__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`users_latest` AS t WHERE t.`user_id` <=> s.`user_id`);
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `users_latest__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_latest' AND partition_key = '';
-- 11. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_latest' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_latest' AND run_id = 'r1';
-- 12. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `users_latest__idemc_stage`;
-- 13. commit
COMMIT;
-- 14. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.users_latest');
