-- unit active_users  partition -  (view)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"active_users"}';
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'd7d3889ead3a23d2', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'ecf1d971cc57c95f9d411adf', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."ACTIVE_USERS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ACTIVE_USERS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ACTIVE_USERS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ACTIVE_USERS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."ACTIVE_USERS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."ACTIVE_USERS"', 'r1', CURRENT_TIMESTAMP);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW "ANALYTICS"."ACTIVE_USERS" AS
SELECT user_id, name, country FROM "RAW"."USERS" WHERE active;
-- 5. check: check not_null(user_id) (error) over the whole view
SELECT * FROM "ANALYTICS"."ACTIVE_USERS" AS t
WHERE (t."USER_ID" IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'active_users' AND partition_key = '';
-- 7. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ACTIVE_USERS"' AND run_id = 'r1';
-- 8. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
