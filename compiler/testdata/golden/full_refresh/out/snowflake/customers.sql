-- unit customers  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"customers"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."CUSTOMERS" AS
SELECT * FROM (
SELECT source_system, user_id, name, country, created_at
FROM "RAW"."USERS"
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b6f7394fc4ec90e8', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'b2ac021a522d7332752f4196', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."CUSTOMERS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."CUSTOMERS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."CUSTOMERS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."CUSTOMERS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."CUSTOMERS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."CUSTOMERS"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "CUSTOMERS__IDEMC_STAGE" AS
SELECT source_system, user_id, name, country, created_at
FROM "RAW"."USERS";
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "SOURCE_SYSTEM", "USER_ID", count(*) AS n FROM "CUSTOMERS__IDEMC_STAGE"
GROUP BY "SOURCE_SYSTEM", "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. delete: full refresh: replace every row
DELETE FROM "ANALYTICS"."CUSTOMERS";
-- 9. insert: write the batch
INSERT INTO "ANALYTICS"."CUSTOMERS" ("SOURCE_SYSTEM", "USER_ID", "NAME", "COUNTRY", "CREATED_AT")
SELECT "SOURCE_SYSTEM", "USER_ID", "NAME", "COUNTRY", "CREATED_AT" FROM "CUSTOMERS__IDEMC_STAGE";
-- 10. check: check not_null(user_id) (error)
SELECT * FROM "ANALYTICS"."CUSTOMERS" AS t
WHERE (EXISTS (SELECT 1 FROM "CUSTOMERS__IDEMC_STAGE" AS s WHERE EQUAL_NULL(t."SOURCE_SYSTEM", s."SOURCE_SYSTEM") AND EQUAL_NULL(t."USER_ID", s."USER_ID"))) AND (t."USER_ID" IS NULL)
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "CUSTOMERS__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 12. commit
COMMIT;
-- 13. cleanup: drop the batch
DROP TABLE IF EXISTS "CUSTOMERS__IDEMC_STAGE";
-- 14. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."CUSTOMERS"' AND run_id = 'r1';
-- 15. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
