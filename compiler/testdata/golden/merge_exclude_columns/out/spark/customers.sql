-- unit customers  partition -  (incremental merge)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`customers` USING DELTA AS
SELECT * FROM (
SELECT user_id, name, country, created_at
FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, '8e46a0105e301e36', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '85cba6ee650ef55ec2c15893', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`customers`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`customers`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`customers`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`customers`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`customers`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`customers`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`customers__idemc_stage_0c53fdac` USING DELTA AS
SELECT user_id, name, country, created_at
FROM `raw`.`users`;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`customers__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.customers;
-- 7. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 8. merge: update matched keys, insert new ones (null-safe <=>), in one Delta commit
MERGE INTO `analytics`.`customers` AS t
USING `analytics`.`customers__idemc_stage_0c53fdac` AS s
ON t.`user_id` <=> s.`user_id`
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `country` = s.`country`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `country`, `created_at`) VALUES (s.`user_id`, s.`name`, s.`country`, s.`created_at`);
-- 9. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 10. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 11. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`customers__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'customers', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '8e46a0105e301e36', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '85cba6ee650ef55ec2c15893', 'r:r1';
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`customers__idemc_stage_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`customers`' AND run_id = 'r1';
