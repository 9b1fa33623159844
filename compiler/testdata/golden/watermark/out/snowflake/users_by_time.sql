-- unit users_by_time  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"users_by_time"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USERS_BY_TIME" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '2026-07-02 11:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 05:55:00'::TIMESTAMP_NTZ
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_time', '', 'running', NULL, <started_at>, NULL, <attempt>, '4568c9544d63e329', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '2aa6b55b555a105a39e38788', 'r:r1');
-- 4. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "USERS_BY_TIME__IDEMC_STAGE" AS
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '2026-07-02 11:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 05:55:00'::TIMESTAMP_NTZ;
-- 5. begin
BEGIN TRANSACTION;
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "USERS_BY_TIME__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."USERS_BY_TIME" AS t
USING "USERS_BY_TIME__IDEMC_STAGE" AS s
ON EQUAL_NULL(t."USER_ID", s."USER_ID")
WHEN MATCHED THEN UPDATE SET "NAME" = s."NAME", "UPDATED_AT" = s."UPDATED_AT"
WHEN NOT MATCHED THEN INSERT ("USER_ID", "NAME", "UPDATED_AT") VALUES (s."USER_ID", s."NAME", s."UPDATED_AT");
-- 8. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'users_by_time' AND EXISTS (SELECT 1 FROM "USERS_BY_TIME__IDEMC_STAGE" WHERE "UPDATED_AT" IS NOT NULL);
-- 9. state: record the batch's maximum updated_at
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'users_by_time', CAST(max("UPDATED_AT") AS VARCHAR), 'r1', NULL FROM "USERS_BY_TIME__IDEMC_STAGE" HAVING max("UPDATED_AT") IS NOT NULL;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "USERS_BY_TIME__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_time' AND partition_key = '';
-- 11. commit
COMMIT;
-- 12. cleanup: drop the batch
DROP TABLE IF EXISTS "USERS_BY_TIME__IDEMC_STAGE";
-- 13. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
