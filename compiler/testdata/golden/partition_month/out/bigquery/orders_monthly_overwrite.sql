-- unit orders_monthly_overwrite  partition 2026-06  (incremental insert_overwrite)
-- 1. prepare: the destination, partitioned by order_month, if it does not exist yet
--    labels idemc_attempt=0,idemc_model=orders_monthly_overwrite,idemc_partition=2026-06,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`orders_monthly_overwrite`
PARTITION BY DATE_TRUNC(`order_month`, MONTH) AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly_overwrite', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, 'bc25d1dcc71b8990', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'aa1fc54636fcc491bac79d4e', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_monthly_overwrite`/2026-06, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly_overwrite`/2026-06' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly_overwrite`/2026-06' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly_overwrite`/2026-06' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_monthly_overwrite`/2026-06'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_monthly_overwrite`/2026-06', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: build the partition in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`orders_monthly_overwrite__idemc_stage_202606_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE (`order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01') OR `order_month` IS NULL;
-- 5. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_monthly_overwrite__idemc_stage_202606_0c53fdac`
WHERE `order_month` IS NULL
HAVING count(*) > 0;
-- 6. publish: replace partition 2026-06 atomically: a query job writing orders_monthly_overwrite$202606 with WRITE_TRUNCATE
--    job publish; into analytics.orders_monthly_overwrite$202606 (WRITE_TRUNCATE)
SELECT `order_id`, `order_month`, `amount` FROM `analytics`.`orders_monthly_overwrite__idemc_stage_202606_0c53fdac`;
-- 7. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`orders_monthly_overwrite__idemc_stage_202606_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_monthly_overwrite', '2026-06', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'bc25d1dcc71b8990', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'aa1fc54636fcc491bac79d4e', 'r:r1';
-- 8. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`orders_monthly_overwrite__idemc_stage_202606_0c53fdac`;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly_overwrite`/2026-06' AND run_id = 'r1';
