-- unit active_users  partition -  (view)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"active_users"}';
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'd7d3889ead3a23d2', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'ecf1d971cc57c95f9d411adf', 'r:r1');
-- 3. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW "ANALYTICS"."ACTIVE_USERS" AS
SELECT user_id, name, country FROM "RAW"."USERS" WHERE active;
-- 4. check: check not_null(user_id) (error) over the whole view
SELECT * FROM "ANALYTICS"."ACTIVE_USERS" AS t
WHERE (t."USER_ID" IS NULL)
LIMIT 5;
-- 5. audit_finish: record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'active_users' AND partition_key = '';
-- 6. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
