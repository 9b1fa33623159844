-- unit order_status  partition -  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`order_status` AS
SELECT * FROM (
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('order_status', '', 'analytics', 'order_status', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '9b5106c0038c4e43', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '56fed8104afcc336ffeb0768', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'order_status', '', 'running', NULL, <started_at>, NULL, <attempt>, '9b5106c0038c4e43', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '56fed8104afcc336ffeb0768', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`order_status`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.order_status')
SELECT GET_LOCK('idemc:analytics.order_status', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `order_status__idemc_stage` AS
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT `source_system`, `order_id`, count(*) AS n FROM `order_status__idemc_stage`
GROUP BY `source_system`, `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. delete: delete the batch's keys (null-safe)
DELETE t FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `order_status__idemc_stage` AS s WHERE t.`source_system` <=> s.`source_system` AND t.`order_id` <=> s.`order_id`);
-- 9. insert: write the batch
INSERT INTO `analytics`.`order_status` (`source_system`, `order_id`, `status`, `amount`)
SELECT `source_system`, `order_id`, `status`, `amount` FROM `order_status__idemc_stage`;
-- 10. check: check unique(source_system, order_id) (error)
SELECT t.`source_system`, t.`order_id`, count(*) AS n FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `order_status__idemc_stage` AS s WHERE t.`source_system` <=> s.`source_system` AND t.`order_id` <=> s.`order_id`)
GROUP BY t.`source_system`, t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `order_status__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'order_status' AND partition_key = '';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'order_status' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'order_status' AND run_id = 'r1';
-- 13. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `order_status__idemc_stage`;
-- 14. commit
COMMIT;
-- 15. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.order_status');
