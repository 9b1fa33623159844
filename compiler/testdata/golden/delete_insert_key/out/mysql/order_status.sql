-- unit order_status  partition -  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`order_status` AS
SELECT * FROM (
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'order_status', '', 'running', NULL, <started_at>, NULL, <attempt>, '9b5106c0038c4e43', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '56fed8104afcc336ffeb0768', 'r:r1');
-- 3. begin
START TRANSACTION;
-- 4. lock: serialize writers of this unit until commit
--    lock `analytics`.`order_status`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.order_status')
SELECT GET_LOCK('idemc:analytics.order_status', 600);
-- 5. stage: the batch
CREATE TEMPORARY TABLE `order_status__idemc_stage` AS
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`;
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT `source_system`, `order_id`, count(*) AS n FROM `order_status__idemc_stage`
GROUP BY `source_system`, `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 7. delete: delete the batch's keys (null-safe)
DELETE t FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `order_status__idemc_stage` AS s WHERE t.`source_system` <=> s.`source_system` AND t.`order_id` <=> s.`order_id`);
-- 8. insert: write the batch
INSERT INTO `analytics`.`order_status` (`source_system`, `order_id`, `status`, `amount`)
SELECT `source_system`, `order_id`, `status`, `amount` FROM `order_status__idemc_stage`;
-- 9. check: check unique(source_system, order_id) (error)
SELECT t.`source_system`, t.`order_id`, count(*) AS n FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `order_status__idemc_stage` AS s WHERE t.`source_system` <=> s.`source_system` AND t.`order_id` <=> s.`order_id`)
GROUP BY t.`source_system`, t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `order_status__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'order_status' AND partition_key = '';
-- 11. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `order_status__idemc_stage`;
-- 12. commit
COMMIT;
-- 13. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.order_status');
