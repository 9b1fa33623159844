-- unit users_table  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, '12504ac6c34abbef', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'd50eda945bb0895830448a15', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_table`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_table`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_table`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`users_table__idemc_stage_0c53fdac` USING DELTA AS
SELECT user_id, name FROM `raw`.`users`;
-- 4. check: check drift.row_count(window 7, ratio 0.25..4) (error) on the staged batch, before publishing
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM `analytics`.`users_table__idemc_stage_0c53fdac` AS t) AS c,
(SELECT percentile(l.row_count, 0.5) AS median, count(*) AS k FROM (
  SELECT a.row_count FROM `analytics`.`idemc_audit` AS a
  WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
  ORDER BY a.ended_at DESC
  LIMIT 7
) AS l) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 5. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`users_table` USING DELTA AS
SELECT * FROM `analytics`.`users_table__idemc_stage_0c53fdac`;
-- 6. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`users_table__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_table', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '12504ac6c34abbef', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'd50eda945bb0895830448a15', 'r:r1';
-- 7. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`users_table__idemc_stage_0c53fdac`;
-- 8. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = 'r1';
