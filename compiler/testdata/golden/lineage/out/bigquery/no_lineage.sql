-- unit no_lineage  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=no_lineage,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`no_lineage` AS
SELECT * FROM (
SELECT order_id FROM `analytics`.`orders_daily`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, '20d9d968fe20993c', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fccbc01cd72d16aee52ab2df', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`no_lineage`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`no_lineage`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`no_lineage`', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`no_lineage`;
-- 6. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`no_lineage` (`order_id`)
SELECT `order_id` FROM (
SELECT order_id FROM `analytics`.`orders_daily`
) AS idemc_batch;
-- 7. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'no_lineage', '', 'succeeded', (SELECT count(*) FROM `analytics`.`no_lineage`), <started_at>, <ended_at>, <attempt>, '20d9d968fe20993c', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'fccbc01cd72d16aee52ab2df', 'r:r1';
-- 8. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = 'r1';
