-- unit user_count  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, '6fb66a5af957df98', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5f3cc1dee7c391b3c64f90e2', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`user_count`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_count`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_count`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_count`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`user_count`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`user_count`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`user_count__idemc_stage_0c53fdac` USING DELTA AS
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT count(*) AS users FROM `analytics`.`users_latest`
) AS idemc_lineage;
-- 4. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`user_count` USING DELTA AS
SELECT * FROM `analytics`.`user_count__idemc_stage_0c53fdac`;
-- 5. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`user_count__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_count', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '6fb66a5af957df98', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '5f3cc1dee7c391b3c64f90e2', 'r:r1';
-- 6. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`user_count__idemc_stage_0c53fdac`;
-- 7. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_count`' AND run_id = 'r1';
