-- unit eu_countries  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, 'eb411be2c7e4ed8c', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '149e136730677a8e88a0905a', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`eu_countries`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`eu_countries`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`eu_countries`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`eu_countries`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`eu_countries`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`eu_countries`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`eu_countries__idemc_stage_0c53fdac` USING DELTA AS
SELECT code, name, population FROM `raw`.`countries` WHERE eu;
-- 4. check: check unique(code) (error) on the staged batch, before publishing
SELECT t.`code`, count(*) AS n FROM `analytics`.`eu_countries__idemc_stage_0c53fdac` AS t
GROUP BY t.`code`
HAVING count(*) > 1
LIMIT 5;
-- 5. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`eu_countries` USING DELTA AS
SELECT * FROM `analytics`.`eu_countries__idemc_stage_0c53fdac`;
-- 6. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`eu_countries__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'eu_countries', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'eb411be2c7e4ed8c', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '149e136730677a8e88a0905a', 'r:r1';
-- 7. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`eu_countries__idemc_stage_0c53fdac`;
-- 8. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`eu_countries`' AND run_id = 'r1';
