-- unit customers  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`customers` AS
SELECT * FROM (
SELECT user_id, name, country, created_at
FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, 'a20ad688454decb1', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c7af1c1145ec9b515af2e899', 'r:r1');
-- 3. begin
START TRANSACTION;
-- 4. lock: serialize writers of this unit until commit
--    lock `analytics`.`customers`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.customers')
SELECT GET_LOCK('idemc:analytics.customers', 600);
-- 5. stage: the batch
CREATE TEMPORARY TABLE `customers__idemc_stage` AS
SELECT user_id, name, country, created_at
FROM `raw`.`users`;
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `customers__idemc_stage`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`customers` AS t
JOIN `customers__idemc_stage` AS s ON t.`user_id` <=> s.`user_id`
SET t.`name` = s.`name`, t.`country` = s.`country`;
-- 8. merge: insert the batch's new keys
INSERT INTO `analytics`.`customers` (`user_id`, `name`, `country`, `created_at`)
SELECT s.`user_id`, s.`name`, s.`country`, s.`created_at` FROM `customers__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`customers` AS t WHERE t.`user_id` <=> s.`user_id`);
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `customers__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 10. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `customers__idemc_stage`;
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.customers');
