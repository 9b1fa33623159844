-- unit user_totals  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, 'dd36e8ba5297e183', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '55f4c89c22ecaad6c4d76479', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`user_totals`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`user_totals`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`user_totals`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`user_totals__idemc_stage_0c53fdac` USING DELTA AS
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM `raw`.`orders`
GROUP BY user_id;
-- 4. check: check min_rows(1) (error) on the staged batch, before publishing
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`user_totals__idemc_stage_0c53fdac` AS t) AS c
WHERE n < 1;
-- 5. check: check unique(user_id) (error) on the staged batch, before publishing
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`user_totals__idemc_stage_0c53fdac` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`user_totals` USING DELTA AS
SELECT * FROM `analytics`.`user_totals__idemc_stage_0c53fdac`;
-- 7. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`user_totals__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_totals', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'dd36e8ba5297e183', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '55f4c89c22ecaad6c4d76479', 'r:r1';
-- 8. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`user_totals__idemc_stage_0c53fdac`;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = 'r1';
