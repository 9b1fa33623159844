-- unit active_users  partition -  (view)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('active_users', '', 'analytics', 'active_users', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'ba2718e285f669a1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f1ee694a017c2db4edad73c4', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'ba2718e285f669a1', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f1ee694a017c2db4edad73c4', 'r:r1');
-- 3. lock: serialize writers of this view until its checks are recorded
--    lock `analytics`.`active_users`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.active_users')
SELECT GET_LOCK('idemc:analytics.active_users', 600);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`active_users` AS
SELECT user_id, name, country FROM `raw`.`users` WHERE active;
-- 5. check: check not_null(user_id) (error) over the whole view
SELECT * FROM `analytics`.`active_users` AS t
WHERE (t.`user_id` IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'active_users' AND partition_key = '';
-- 7. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'active_users' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'active_users' AND run_id = 'r1';
-- 8. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.active_users');
