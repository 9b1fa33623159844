-- unit users_by_mark  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"users_by_mark"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USERS_BY_MARK" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '1970-01-01 00:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 06:00:00'::TIMESTAMP_NTZ
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_mark', '', 'running', NULL, <started_at>, NULL, <attempt>, '48f4f95fe913f89d', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '7d00e846f0d0e70815183009', 'r:r1');
-- 4. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "USERS_BY_MARK__IDEMC_STAGE" AS
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '1970-01-01 00:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 06:00:00'::TIMESTAMP_NTZ;
-- 5. begin
BEGIN TRANSACTION;
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "USERS_BY_MARK__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 7. delete: full refresh: replace every row
DELETE FROM "ANALYTICS"."USERS_BY_MARK";
-- 8. insert: write the batch
INSERT INTO "ANALYTICS"."USERS_BY_MARK" ("USER_ID", "NAME", "UPDATED_AT")
SELECT "USER_ID", "NAME", "UPDATED_AT" FROM "USERS_BY_MARK__IDEMC_STAGE";
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'users_by_mark' AND EXISTS (SELECT 1 FROM "USERS_BY_MARK__IDEMC_STAGE" WHERE "UPDATED_AT" IS NOT NULL);
-- 10. state: record the batch's maximum updated_at
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'users_by_mark', CAST(max("UPDATED_AT") AS VARCHAR), 'r1', NULL FROM "USERS_BY_MARK__IDEMC_STAGE" HAVING max("UPDATED_AT") IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "USERS_BY_MARK__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_mark' AND partition_key = '';
-- 12. commit
COMMIT;
-- 13. cleanup: drop the batch
DROP TABLE IF EXISTS "USERS_BY_MARK__IDEMC_STAGE";
-- 14. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
