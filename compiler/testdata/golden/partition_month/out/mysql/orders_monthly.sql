-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_monthly` AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_monthly', '2026-06', 'analytics', 'orders_monthly', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '7602f0b9d9627a23', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e68f71732089dda1771358b4', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '7602f0b9d9627a23', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e68f71732089dda1771358b4', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_monthly`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_monthly')
SELECT GET_LOCK('idemc:analytics.orders_monthly', 600);
-- 6. delete: replace the partition window 2026-06
DELETE t FROM `analytics`.`orders_monthly` AS t
WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01';
-- 7. insert: write the partition
INSERT INTO `analytics`.`orders_monthly` (`order_id`, `order_month`, `amount`)
SELECT `order_id`, `order_month`, `amount` FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE (`order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01') OR `order_month` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_monthly`
WHERE `order_month` IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`orders_monthly` AS t WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_monthly' AND partition_key = '2026-06';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_monthly' AND partition_key = '2026-06' AND dest_schema = 'analytics' AND dest_name = 'orders_monthly' AND run_id = 'r1';
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_monthly');
