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
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USER_COUNT", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_COUNT"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_COUNT"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_COUNT"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USER_COUNT"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USER_COUNT"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USER_COUNT" ("USERS", "_IDEMC_RUN_ID", "_IDEMC_AS_OF")
SELECT "USERS", "_IDEMC_RUN_ID", "_IDEMC_AS_OF" FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (
SELECT count(*) AS users FROM "ANALYTICS"."USERS_LATEST"
) AS idemc_lineage
) AS idemc_batch;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USER_COUNT"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_count' AND partition_key = '';
-- 8. commit
COMMIT;
-- 9. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_COUNT"' AND run_id = 'r1';
-- 10. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
