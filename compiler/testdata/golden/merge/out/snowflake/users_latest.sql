-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"users_latest"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USERS_LATEST" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at > (SELECT max(updated_at) FROM "ANALYTICS"."USERS_LATEST")
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, '0a29dd58e1c75730', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '18cd21e7b62c5a119a29f557', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USERS_LATEST", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_LATEST"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_LATEST"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_LATEST"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USERS_LATEST"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USERS_LATEST"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "USERS_LATEST__IDEMC_STAGE" AS
SELECT user_id, name, updated_at
FROM "RAW"."USERS"
WHERE updated_at > (SELECT max(updated_at) FROM "ANALYTICS"."USERS_LATEST");
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "USERS_LATEST__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."USERS_LATEST" AS t
USING "USERS_LATEST__IDEMC_STAGE" AS s
ON EQUAL_NULL(t."USER_ID", s."USER_ID")
WHEN MATCHED THEN UPDATE SET "NAME" = s."NAME", "UPDATED_AT" = s."UPDATED_AT"
WHEN NOT MATCHED THEN INSERT ("USER_ID", "NAME", "UPDATED_AT") VALUES (s."USER_ID", s."NAME", s."UPDATED_AT");
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "USERS_LATEST__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_latest' AND partition_key = '';
-- 10. commit
COMMIT;
-- 11. cleanup: drop the batch
DROP TABLE IF EXISTS "USERS_LATEST__IDEMC_STAGE";
-- 12. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_LATEST"' AND run_id = 'r1';
-- 13. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
