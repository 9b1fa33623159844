-- unit orders_daily  partition 2026-07-02  (incremental insert_overwrite)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily` USING DELTA AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'efddf78c411dbcff', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7853e7b23d0745f1ec0c4592', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_daily`/2026-07-02'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac` USING DELTA AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03') OR `order_date` IS NULL;
-- 5. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 6. check: check not_null(order_id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE (t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AND (t.`order_id` IS NULL)
LIMIT 5;
-- 7. check: check unique(order_id) (error) on the staged batch, before publishing
SELECT t.`order_id`, count(*) AS n FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03'
GROUP BY t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 8. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.orders_daily:2026-07-02;
-- 9. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 10. insert: replace the partition window 2026-07-02 in one Delta commit (Delta's native partition overwrite)
INSERT INTO `analytics`.`orders_daily`
REPLACE WHERE `order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03'
SELECT `order_id`, `order_date`, `user_id`, `amount`, `_idemc_run_id`, `_idemc_as_of` FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`;
-- 11. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 12. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 13. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_daily', '2026-07-02', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'efddf78c411dbcff', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '7853e7b23d0745f1ec0c4592', 'r:r1';
-- 14. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`orders_daily__idemc_stage_20260702_0c53fdac`;
-- 15. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_daily`/2026-07-02' AND run_id = 'r1';
