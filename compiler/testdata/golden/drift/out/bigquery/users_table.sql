-- unit users_table  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=users_table,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`users_table` AS
SELECT * FROM (
SELECT user_id, name FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, '49b50e1f9034b184', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '64b74dd91ad52e2a722db862', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_table`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_table`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_table`', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`users_table`;
-- 6. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`users_table` (`user_id`, `name`)
SELECT `user_id`, `name` FROM (
SELECT user_id, name FROM `raw`.`users`
) AS idemc_batch;
-- 7. check: check drift.row_count(window 7, ratio 0.25..4) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM `analytics`.`users_table` AS t) AS c,
(SELECT avg(o.row_count) AS median, max(o.k) AS k FROM (
  SELECT l.row_count, ROW_NUMBER() OVER (ORDER BY l.row_count) AS i, count(*) OVER () AS k FROM (
    SELECT a.row_count FROM `analytics`.`idemc_audit` AS a
    WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
    ORDER BY a.ended_at DESC
    LIMIT 7
  ) AS l
) AS o
WHERE 2 * o.i BETWEEN o.k AND o.k + 2) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median)
) AS 'idemc check drift.row_count(window 7, ratio 0.25..4)';
-- 8. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_table', '', 'succeeded', (SELECT count(*) FROM `analytics`.`users_table`), <started_at>, <ended_at>, <attempt>, '49b50e1f9034b184', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '64b74dd91ad52e2a722db862', 'r:r1';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_table`' AND run_id = 'r1';
