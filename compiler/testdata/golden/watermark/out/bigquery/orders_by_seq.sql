-- unit orders_by_seq  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=orders_by_seq,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`orders_by_seq` AS
SELECT * FROM (
SELECT order_id, order_seq, amount
FROM `raw`.`orders`
WHERE order_seq > 41 AND order_seq <= 9223372036854775807
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_by_seq', '', 'running', NULL, <started_at>, NULL, <attempt>, '8bdd95dc14d98177', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '81f13224c2492243b2019a18', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`orders_by_seq`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_by_seq`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_by_seq`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_by_seq`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`orders_by_seq`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`orders_by_seq`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`orders_by_seq__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT order_id, order_seq, amount
FROM `raw`.`orders`
WHERE order_seq > 41 AND order_seq <= 9223372036854775807;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `order_id`, count(*) AS n FROM `analytics`.`orders_by_seq__idemc_stage_0c53fdac`
GROUP BY `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. merge: update matched keys, insert new ones (null-safe)
--    deferred to the script's commit
MERGE INTO `analytics`.`orders_by_seq` AS t
USING `analytics`.`orders_by_seq__idemc_stage_0c53fdac` AS s
ON (t.`order_id` = s.`order_id` OR (t.`order_id` IS NULL AND s.`order_id` IS NULL))
WHEN MATCHED THEN UPDATE SET `order_seq` = s.`order_seq`, `amount` = s.`amount`
WHEN NOT MATCHED THEN INSERT (`order_id`, `order_seq`, `amount`) VALUES (s.`order_id`, s.`order_seq`, s.`amount`);
-- 8. state: forget the old high-water mark if the batch has rows
--    deferred to the script's commit
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'orders_by_seq' AND EXISTS (SELECT 1 FROM `analytics`.`orders_by_seq__idemc_stage_0c53fdac` WHERE `order_seq` IS NOT NULL);
-- 9. state: record the batch's maximum order_seq
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'orders_by_seq', CAST(max(`order_seq`) AS STRING), 'r1', NULL FROM `analytics`.`orders_by_seq__idemc_stage_0c53fdac` HAVING max(`order_seq`) IS NOT NULL;
-- 10. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'orders_by_seq', '', 'succeeded', (SELECT count(*) FROM `analytics`.`orders_by_seq__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, '8bdd95dc14d98177', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '81f13224c2492243b2019a18', 'r:r1';
-- 11. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`orders_by_seq__idemc_stage_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`orders_by_seq`' AND run_id = 'r1';
