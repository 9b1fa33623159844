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
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USERS_BY_TIME", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_TIME"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_TIME"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_TIME"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USERS_BY_TIME"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USERS_BY_TIME"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "USERS_BY_TIME__IDEMC_STAGE" AS
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '2026-07-02 11:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 05:55:00'::TIMESTAMP_NTZ;
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "USERS_BY_TIME__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."USERS_BY_TIME" AS t
USING "USERS_BY_TIME__IDEMC_STAGE" AS s
ON EQUAL_NULL(t."USER_ID", s."USER_ID")
WHEN MATCHED THEN UPDATE SET "NAME" = s."NAME", "UPDATED_AT" = s."UPDATED_AT"
WHEN NOT MATCHED THEN INSERT ("USER_ID", "NAME", "UPDATED_AT") VALUES (s."USER_ID", s."NAME", s."UPDATED_AT");
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'users_by_time' AND EXISTS (SELECT 1 FROM "USERS_BY_TIME__IDEMC_STAGE" WHERE "UPDATED_AT" IS NOT NULL);
-- 10. state: record the batch's maximum updated_at
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'users_by_time', CAST(max("UPDATED_AT") AS VARCHAR), 'r1', NULL FROM "USERS_BY_TIME__IDEMC_STAGE" HAVING max("UPDATED_AT") IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "USERS_BY_TIME__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_time' AND partition_key = '';
-- 12. commit
COMMIT;
-- 13. cleanup: drop the batch
DROP TABLE IF EXISTS "USERS_BY_TIME__IDEMC_STAGE";
-- 14. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_TIME"' AND run_id = 'r1';
-- 15. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
