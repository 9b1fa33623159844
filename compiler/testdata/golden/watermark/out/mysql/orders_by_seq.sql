-- unit orders_by_seq  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_by_seq` AS
SELECT * FROM (
SELECT order_id, order_seq, amount
FROM `raw`.`orders`
WHERE order_seq > 41 AND order_seq <= 9223372036854775807
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_by_seq', '', 'analytics', 'orders_by_seq', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '573f83889d03d11d', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'dd514ad839c5525dc0c6f076', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_by_seq', '', 'running', NULL, <started_at>, NULL, <attempt>, '573f83889d03d11d', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'dd514ad839c5525dc0c6f076', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_by_seq`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_by_seq')
SELECT GET_LOCK('idemc:analytics.orders_by_seq', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `orders_by_seq__idemc_stage` AS
SELECT order_id, order_seq, amount
FROM `raw`.`orders`
WHERE order_seq > 41 AND order_seq <= 9223372036854775807;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `order_id`, count(*) AS n FROM `orders_by_seq__idemc_stage`
GROUP BY `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys (null-safe <=>)
UPDATE `analytics`.`orders_by_seq` AS t
JOIN `orders_by_seq__idemc_stage` AS s ON t.`order_id` <=> s.`order_id`
SET t.`order_seq` = s.`order_seq`, t.`amount` = s.`amount`;
-- 9. merge: insert the batch's new keys
INSERT INTO `analytics`.`orders_by_seq` (`order_id`, `order_seq`, `amount`)
SELECT s.`order_id`, s.`order_seq`, s.`amount` FROM `orders_by_seq__idemc_stage` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`orders_by_seq` AS t WHERE t.`order_id` <=> s.`order_id`);
-- 10. state: forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'orders_by_seq' AND EXISTS (SELECT 1 FROM `orders_by_seq__idemc_stage` WHERE `order_seq` IS NOT NULL);
-- 11. state: record the batch's maximum order_seq
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'orders_by_seq', CAST(max(`order_seq`) AS CHAR), 'r1', NULL FROM `orders_by_seq__idemc_stage` HAVING max(`order_seq`) IS NOT NULL;
-- 12. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `orders_by_seq__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_by_seq' AND partition_key = '';
-- 13. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_by_seq' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'orders_by_seq' AND run_id = 'r1';
-- 14. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `orders_by_seq__idemc_stage`;
-- 15. commit
COMMIT;
-- 16. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_by_seq');
