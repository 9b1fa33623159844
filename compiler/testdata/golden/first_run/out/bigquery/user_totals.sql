-- unit user_totals  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=user_totals,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`user_totals` AS
SELECT * FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM `raw`.`orders`
GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '2262f282c198ada3', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a0cf4eb1119826ad2c7bf616', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`user_totals`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`user_totals`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`user_totals`', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`user_totals`;
-- 6. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`user_totals` (`user_id`, `orders`, `amount`)
SELECT `user_id`, `orders`, `amount` FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM `raw`.`orders`
GROUP BY user_id
) AS idemc_batch;
-- 7. check: check min_rows(1) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`user_totals` AS t) AS c
WHERE n < 1
) AS 'idemc check min_rows(1)';
-- 8. check: check unique(user_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`user_totals` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(user_id)';
-- 9. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_totals', '', 'succeeded', (SELECT count(*) FROM `analytics`.`user_totals`), <started_at>, <ended_at>, <attempt>, '2262f282c198ada3', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'a0cf4eb1119826ad2c7bf616', 'r:r1';
-- 10. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 11. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_totals`' AND run_id = 'r1';
