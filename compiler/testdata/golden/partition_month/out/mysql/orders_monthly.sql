-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_monthly` AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '7602f0b9d9627a23', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e68f71732089dda1771358b4', 'r:r1');
-- 3. begin
START TRANSACTION;
-- 4. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_monthly`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_monthly')
SELECT GET_LOCK('idemc:analytics.orders_monthly', 600);
-- 5. delete: replace the partition window 2026-06
DELETE t FROM `analytics`.`orders_monthly` AS t
WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01';
-- 6. insert: write the partition
INSERT INTO `analytics`.`orders_monthly` (`order_id`, `order_month`, `amount`)
SELECT `order_id`, `order_month`, `amount` FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE (`order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01') OR `order_month` IS NULL
) AS idemc_batch;
-- 7. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_monthly`
WHERE `order_month` IS NULL
HAVING count(*) > 0;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`orders_monthly` AS t WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_monthly' AND partition_key = '2026-06';
-- 9. commit
COMMIT;
-- 10. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_monthly');
