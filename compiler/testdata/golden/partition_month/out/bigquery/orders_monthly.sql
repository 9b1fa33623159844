-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=orders_monthly,idemc_partition=2026-06,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`orders_monthly`
PARTITION BY DATE_TRUNC(`order_month`, MONTH) AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '1fc5ec69e8057b3f', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'b04e8480606c262dcbb29b57', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_monthly`/2026-06, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_monthly`/2026-06'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_monthly`/2026-06', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-06
--    deferred to the script's commit
DELETE FROM `analytics`.`orders_monthly` AS t
WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01';
-- 6. insert: write the partition
--    deferred to the script's commit
INSERT INTO `analytics`.`orders_monthly` (`order_id`, `order_month`, `amount`)
SELECT `order_id`, `order_month`, `amount` FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE (`order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01') OR `order_month` IS NULL
) AS idemc_batch;
-- 7. validate: check not_null(order_month) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT count(*) AS n FROM `analytics`.`orders_monthly`
WHERE `order_month` IS NULL
HAVING count(*) > 0
) AS 'idemc check not_null(order_month)';
-- 8. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_monthly', '2026-06', 'succeeded', (SELECT count(*) FROM `analytics`.`orders_monthly` AS t WHERE t.`order_month` >= DATE '2026-06-01' AND t.`order_month` < DATE '2026-07-01'), <started_at>, <ended_at>, <attempt>, '1fc5ec69e8057b3f', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'b04e8480606c262dcbb29b57', 'r:r1';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = 'r1';
