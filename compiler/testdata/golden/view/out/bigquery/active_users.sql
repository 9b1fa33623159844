-- unit active_users  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
--    labels idemc_attempt=0,idemc_model=active_users,idemc_run=r1
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, '283549ecc4a0597a', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a7247f5ee9df43e09b340be3', 'r:r1');
-- 2. publish: replace the view (DDL: not allowed inside a transaction; a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`active_users` AS
SELECT user_id, name, country FROM `raw`.`users` WHERE active;
-- 3. check: check not_null(user_id) (error) over the whole view
SELECT * FROM `analytics`.`active_users` AS t
WHERE (t.`user_id` IS NULL)
LIMIT 5;
-- 4. audit_finish: record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'active_users', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '283549ecc4a0597a', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'a7247f5ee9df43e09b340be3', 'r:r1';
