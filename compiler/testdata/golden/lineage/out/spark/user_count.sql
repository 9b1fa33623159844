-- unit user_count  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, '6fb66a5af957df98', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5f3cc1dee7c391b3c64f90e2', 'r:r1');
-- 2. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`user_count__idemc_stage_0c53fdac` USING DELTA AS
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT count(*) AS users FROM `analytics`.`users_latest`
) AS idemc_lineage;
-- 3. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`user_count` USING DELTA AS
SELECT * FROM `analytics`.`user_count__idemc_stage_0c53fdac`;
-- 4. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`user_count__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_count', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '6fb66a5af957df98', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '5f3cc1dee7c391b3c64f90e2', 'r:r1';
-- 5. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`user_count__idemc_stage_0c53fdac`;
