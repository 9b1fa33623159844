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
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USERS_BY_MARK", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_MARK"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_MARK"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_MARK"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USERS_BY_MARK"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USERS_BY_MARK"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "USERS_BY_MARK__IDEMC_STAGE" AS
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at >= '1970-01-01 00:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 06:00:00'::TIMESTAMP_NTZ;
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "USERS_BY_MARK__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. delete: full refresh: replace every row
DELETE FROM "ANALYTICS"."USERS_BY_MARK";
-- 9. insert: write the batch
INSERT INTO "ANALYTICS"."USERS_BY_MARK" ("USER_ID", "NAME", "UPDATED_AT")
SELECT "USER_ID", "NAME", "UPDATED_AT" FROM "USERS_BY_MARK__IDEMC_STAGE";
-- 10. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'users_by_mark' AND EXISTS (SELECT 1 FROM "USERS_BY_MARK__IDEMC_STAGE" WHERE "UPDATED_AT" IS NOT NULL);
-- 11. state: record the batch's maximum updated_at
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'users_by_mark', CAST(max("UPDATED_AT") AS VARCHAR), 'r1', NULL FROM "USERS_BY_MARK__IDEMC_STAGE" HAVING max("UPDATED_AT") IS NOT NULL;
-- 12. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "USERS_BY_MARK__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_mark' AND partition_key = '';
-- 13. commit
COMMIT;
-- 14. cleanup: drop the batch
DROP TABLE IF EXISTS "USERS_BY_MARK__IDEMC_STAGE";
-- 15. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_BY_MARK"' AND run_id = 'r1';
-- 16. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
