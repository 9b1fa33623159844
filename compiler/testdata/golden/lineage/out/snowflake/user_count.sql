-- unit user_count  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"user_count"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USER_COUNT" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (
SELECT count(*) AS users FROM "ANALYTICS"."USERS_LATEST"
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, 'caf600d2639191c3', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '64040f641623e7983f2fe3b2', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USER_COUNT" ("USERS", "_IDEMC_RUN_ID", "_IDEMC_AS_OF")
SELECT "USERS", "_IDEMC_RUN_ID", "_IDEMC_AS_OF" FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (
SELECT count(*) AS users FROM "ANALYTICS"."USERS_LATEST"
) AS idemc_lineage
) AS idemc_batch;
-- 6. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USER_COUNT"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_count' AND partition_key = '';
-- 7. commit
COMMIT;
-- 8. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
