-- unit users_by_time  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`users_by_time` AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_time', '', 'running', NULL, <started_at>, NULL, <attempt>, '95f1c87d6ef1bc1e', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1813b975e653aec2034f763d', 'r:r1');
-- 3. begin
START TRANSACTION;
-- 4. lock: serialize writers of this unit until commit
--    lock `analytics`.`users_by_time`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.users_by_time')
SELECT GET_LOCK('idemc:analytics.users_by_time', 600);
-- 5. stage: the batch
CREATE TEMPORARY TABLE `users_by_time__idemc_stage` AS
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `users_by_time__idemc_stage`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`users_by_time` AS t
JOIN `users_by_time__idemc_stage` AS s ON t.`user_id` <=> s.`user_id`
SET t.`name` = s.`name`, t.`updated_at` = s.`updated_at`;
-- 8. merge: insert the batch's new keys
INSERT INTO `analytics`.`users_by_time` (`user_id`, `name`, `updated_at`)
SELECT s.`user_id`, s.`name`, s.`updated_at` FROM `users_by_time__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`users_by_time` AS t WHERE t.`user_id` <=> s.`user_id`);
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'users_by_time' AND EXISTS (SELECT 1 FROM `users_by_time__idemc_stage` WHERE `updated_at` IS NOT NULL);
-- 10. state: record the batch's maximum updated_at
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'users_by_time', CAST(max(`updated_at`) AS CHAR), 'r1', NULL FROM `users_by_time__idemc_stage` HAVING max(`updated_at`) IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `users_by_time__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_time' AND partition_key = '';
-- 12. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `users_by_time__idemc_stage`;
-- 13. commit
COMMIT;
-- 14. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.users_by_time');
