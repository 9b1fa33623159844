-- unit active_users  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cb0160999975776c', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c7b76fd83e546ff15fe703e3', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`active_users`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`active_users`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`active_users`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`active_users`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`active_users`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`active_users`', 'r1', CURRENT_TIMESTAMP);
-- 3. publish: replace the view (no transaction: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`active_users` WITH SCHEMA EVOLUTION AS
SELECT user_id, name, country FROM `raw`.`users` WHERE active;
-- 4. check: check not_null(user_id) (error) over the whole view
SELECT * FROM `analytics`.`active_users` AS t
WHERE (t.`user_id` IS NULL)
LIMIT 5;
-- 5. audit_finish: record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'active_users', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'cb0160999975776c', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'c7b76fd83e546ff15fe703e3', 'r:r1';
-- 6. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`active_users`' AND run_id = 'r1';
