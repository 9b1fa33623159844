-- unit order_status  partition -  (incremental delete_insert)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`order_status` USING DELTA AS
SELECT * FROM (
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'order_status', '', 'running', NULL, <started_at>, NULL, <attempt>, '50b6b6dd09dc8d35', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5d4ba03bbbcd9e8c19e061bb', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`order_status`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`order_status`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`order_status`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`order_status__idemc_stage_0c53fdac` USING DELTA AS
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `source_system`, `order_id`, count(*) AS n FROM `analytics`.`order_status__idemc_stage_0c53fdac`
GROUP BY `source_system`, `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. check: check unique(source_system, order_id) (error) on the staged batch, before publishing
SELECT t.`source_system`, t.`order_id`, count(*) AS n FROM `analytics`.`order_status__idemc_stage_0c53fdac` AS t
GROUP BY t.`source_system`, t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 7. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.order_status;
-- 8. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 9. merge: delete the batch's keys and insert the batch in one Delta commit (null-safe)
MERGE INTO `analytics`.`order_status` AS t
USING (
  SELECT *, 'delete' AS idemc_op FROM `analytics`.`order_status__idemc_stage_0c53fdac`
  UNION ALL
  SELECT *, 'insert' AS idemc_op FROM `analytics`.`order_status__idemc_stage_0c53fdac`
) AS s
ON t.`source_system` <=> s.`source_system` AND t.`order_id` <=> s.`order_id` AND s.idemc_op = 'delete'
WHEN MATCHED THEN DELETE
WHEN NOT MATCHED AND s.idemc_op = 'insert' THEN INSERT (`source_system`, `order_id`, `status`, `amount`) VALUES (s.`source_system`, s.`order_id`, s.`status`, s.`amount`);
-- 10. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 11. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 12. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`order_status__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'order_status', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '50b6b6dd09dc8d35', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '5d4ba03bbbcd9e8c19e061bb', 'r:r1';
-- 13. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`order_status__idemc_stage_0c53fdac`;
-- 14. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = 'r1';
