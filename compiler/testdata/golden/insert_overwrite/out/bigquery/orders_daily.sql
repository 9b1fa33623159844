-- unit orders_daily  partition 2026-07-02  (incremental insert_overwrite)
-- 1. prepare: the destination, partitioned by order_date, if it does not exist yet
--    labels idemc_attempt=0,idemc_model=orders_daily,idemc_partition=2026-07-02,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily`
PARTITION BY `order_date` AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '538396764bdfa277', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '56fc4cd6367803fff1d555b5', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_daily`/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: build the partition in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03') OR `order_date` IS NULL;
-- 5. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 6. check: check not_null(order_id) (error) on the staged partition, before publishing
SELECT * FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE (t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AND (t.`order_id` IS NULL)
LIMIT 5;
-- 7. publish: replace partition 2026-07-02 atomically: a query job writing orders_daily$20260702 with WRITE_TRUNCATE
--    job publish; into analytics.orders_daily$20260702 (WRITE_TRUNCATE)
SELECT `order_id`, `order_date`, `user_id`, `amount` FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`;
-- 8. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_daily', '2026-07-02', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '538396764bdfa277', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '56fc4cd6367803fff1d555b5', 'r:r1';
-- 9. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1';
