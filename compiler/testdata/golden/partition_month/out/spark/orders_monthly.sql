-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_monthly` USING DELTA AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '771db847f1a34620', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '99341ed9dbe2523b242a0484', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_monthly`/2026-06, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_monthly`/2026-06'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_monthly`/2026-06', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`orders_monthly__idemc_stage_202606_0c53fdac` USING DELTA AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE (`order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01') OR `order_month` IS NULL;
-- 5. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_monthly__idemc_stage_202606_0c53fdac`
WHERE `order_month` IS NULL
HAVING count(*) > 0;
-- 6. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.orders_monthly:2026-06;
-- 7. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 8. insert: replace the partition window 2026-06 in one Delta commit
INSERT INTO `analytics`.`orders_monthly`
REPLACE WHERE `order_month` >= DATE '2026-06-01' AND `order_month` < DATE '2026-07-01'
SELECT `order_id`, `order_month`, `amount` FROM `analytics`.`orders_monthly__idemc_stage_202606_0c53fdac`;
-- 9. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 10. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 11. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`orders_monthly__idemc_stage_202606_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_monthly', '2026-06', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '771db847f1a34620', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '99341ed9dbe2523b242a0484', 'r:r1';
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`orders_monthly__idemc_stage_202606_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_monthly`/2026-06' AND run_id = 'r1';
