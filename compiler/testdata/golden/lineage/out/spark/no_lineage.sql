-- unit no_lineage  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, '1aa57239abeab96b', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '58def28b1db532f2b0731ffe', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`no_lineage`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`no_lineage`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`no_lineage`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`no_lineage__idemc_stage_0c53fdac` USING DELTA AS
SELECT order_id FROM `analytics`.`orders_daily`;
-- 4. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`no_lineage` USING DELTA AS
SELECT * FROM `analytics`.`no_lineage__idemc_stage_0c53fdac`;
-- 5. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`no_lineage__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'no_lineage', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '1aa57239abeab96b', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '58def28b1db532f2b0731ffe', 'r:r1';
-- 6. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`no_lineage__idemc_stage_0c53fdac`;
-- 7. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`no_lineage`' AND run_id = 'r1';
