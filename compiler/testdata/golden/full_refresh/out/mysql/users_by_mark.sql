-- unit users_by_mark  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`users_by_mark` AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 06:00:00'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_by_mark', '', 'analytics', 'users_by_mark', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '8a2c9c8229e18a9f', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bc00e459d597ae9f582df375', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_mark', '', 'running', NULL, <started_at>, NULL, <attempt>, '8a2c9c8229e18a9f', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bc00e459d597ae9f582df375', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`users_by_mark`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.users_by_mark')
SELECT GET_LOCK('idemc:analytics.users_by_mark', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `users_by_mark__idemc_stage` AS
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 06:00:00';
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `users_by_mark__idemc_stage`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. delete: full refresh: replace every row
DELETE FROM `analytics`.`users_by_mark`;
-- 9. insert: write the batch
INSERT INTO `analytics`.`users_by_mark` (`user_id`, `name`, `updated_at`)
SELECT `user_id`, `name`, `updated_at` FROM `users_by_mark__idemc_stage`;
-- 10. state: forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'users_by_mark' AND EXISTS (SELECT 1 FROM `users_by_mark__idemc_stage` WHERE `updated_at` IS NOT NULL);
-- 11. state: record the batch's maximum updated_at
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'users_by_mark', CAST(max(`updated_at`) AS CHAR), 'r1', NULL FROM `users_by_mark__idemc_stage` HAVING max(`updated_at`) IS NOT NULL;
-- 12. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `users_by_mark__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_mark' AND partition_key = '';
-- 13. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_by_mark' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_by_mark' AND run_id = 'r1';
-- 14. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `users_by_mark__idemc_stage`;
-- 15. commit
COMMIT;
-- 16. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.users_by_mark');
