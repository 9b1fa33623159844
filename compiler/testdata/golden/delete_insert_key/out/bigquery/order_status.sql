-- unit order_status  partition -  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=order_status,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`order_status` AS
SELECT * FROM (
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'order_status', '', 'running', NULL, <started_at>, NULL, <attempt>, '825fb0685c62cdf8', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '573aada28845923a8791b7ee', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`order_status`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`order_status`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`order_status`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`order_status__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT source_system, order_id, status, amount
FROM `raw`.`orders`;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `source_system`, `order_id`, count(*) AS n FROM `analytics`.`order_status__idemc_stage_0c53fdac`
GROUP BY `source_system`, `order_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. delete: delete the batch's keys (null-safe)
--    deferred to the script's commit
DELETE FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `analytics`.`order_status__idemc_stage_0c53fdac` AS s WHERE (t.`source_system` = s.`source_system` OR (t.`source_system` IS NULL AND s.`source_system` IS NULL)) AND (t.`order_id` = s.`order_id` OR (t.`order_id` IS NULL AND s.`order_id` IS NULL)));
-- 8. insert: write the batch
--    deferred to the script's commit
INSERT INTO `analytics`.`order_status` (`source_system`, `order_id`, `status`, `amount`)
SELECT `source_system`, `order_id`, `status`, `amount` FROM `analytics`.`order_status__idemc_stage_0c53fdac`;
-- 9. check: check unique(source_system, order_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`source_system`, t.`order_id`, count(*) AS n FROM `analytics`.`order_status` AS t
WHERE EXISTS (SELECT 1 FROM `analytics`.`order_status__idemc_stage_0c53fdac` AS s WHERE (t.`source_system` = s.`source_system` OR (t.`source_system` IS NULL AND s.`source_system` IS NULL)) AND (t.`order_id` = s.`order_id` OR (t.`order_id` IS NULL AND s.`order_id` IS NULL)))
GROUP BY t.`source_system`, t.`order_id`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(source_system, order_id)';
-- 10. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'order_status', '', 'succeeded', (SELECT count(*) FROM `analytics`.`order_status__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, '825fb0685c62cdf8', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '573aada28845923a8791b7ee', 'r:r1';
-- 11. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`order_status__idemc_stage_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`order_status`' AND run_id = 'r1';
