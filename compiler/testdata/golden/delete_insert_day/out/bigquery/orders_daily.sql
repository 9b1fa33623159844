-- unit orders_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
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
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '2e047bdf931e8d71', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '614de22f6ea7344badcb7c62', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_daily`/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-07-02
--    deferred to the script's commit
DELETE FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03';
-- 6. insert: write the partition
--    deferred to the script's commit
INSERT INTO `analytics`.`orders_daily` (`order_id`, `order_date`, `user_id`, `amount`)
SELECT `order_id`, `order_date`, `user_id`, `amount` FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03') OR `order_date` IS NULL
) AS idemc_batch;
-- 7. validate: check not_null(order_date) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT count(*) AS n FROM `analytics`.`orders_daily`
WHERE `order_date` IS NULL
HAVING count(*) > 0
) AS 'idemc check not_null(order_date)';
-- 8. check: check not_null(order_id, order_date) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`orders_daily` AS t
WHERE (t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AND (t.`order_id` IS NULL OR t.`order_date` IS NULL)
LIMIT 5
) AS 'idemc check not_null(order_id, order_date)';
-- 9. check: check unique(order_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`order_id`, count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03'
GROUP BY t.`order_id`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(order_id)';
-- 10. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_daily', '2026-07-02', 'succeeded', (SELECT count(*) FROM `analytics`.`orders_daily` AS t WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03'), <started_at>, <ended_at>, <attempt>, '2e047bdf931e8d71', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '614de22f6ea7344badcb7c62', 'r:r1';
-- 11. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 12. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1';
