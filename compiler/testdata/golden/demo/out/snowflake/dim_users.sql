-- unit dim_users  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"dim_users"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."DIM_USERS" AS
SELECT * FROM (
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM "RAW"."USERS"
WHERE updated_at >= '1970-01-01 00:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 05:55:00'::TIMESTAMP_NTZ
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'dim_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cfd56844d4d52cc1', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '562c7c696e485b60568d660c', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."DIM_USERS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DIM_USERS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DIM_USERS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DIM_USERS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."DIM_USERS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."DIM_USERS"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "DIM_USERS__IDEMC_STAGE" AS
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM "RAW"."USERS"
WHERE updated_at >= '1970-01-01 00:00:00'::TIMESTAMP_NTZ AND updated_at < '2026-07-03 05:55:00'::TIMESTAMP_NTZ;
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "USER_ID", count(*) AS n FROM "DIM_USERS__IDEMC_STAGE"
GROUP BY "USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."DIM_USERS" AS t
USING "DIM_USERS__IDEMC_STAGE" AS s
ON EQUAL_NULL(t."USER_ID", s."USER_ID")
WHEN MATCHED THEN UPDATE SET "NAME" = s."NAME", "COUNTRY" = s."COUNTRY", "UPDATED_AT" = s."UPDATED_AT"
WHEN NOT MATCHED THEN INSERT ("USER_ID", "NAME", "COUNTRY", "UPDATED_AT", "FIRST_LOADED_BY") VALUES (s."USER_ID", s."NAME", s."COUNTRY", s."UPDATED_AT", s."FIRST_LOADED_BY");
-- 9. check: check accepted_values(country) (error)
SELECT t."COUNTRY", count(*) AS n FROM "ANALYTICS"."DIM_USERS" AS t
WHERE (EXISTS (SELECT 1 FROM "DIM_USERS__IDEMC_STAGE" AS s WHERE EQUAL_NULL(t."USER_ID", s."USER_ID"))) AND t."COUNTRY" IS NOT NULL AND t."COUNTRY" NOT IN ('DE', 'FR', 'US', 'JP')
GROUP BY t."COUNTRY"
LIMIT 5;
-- 10. check: check not_null(user_id) (error)
SELECT * FROM "ANALYTICS"."DIM_USERS" AS t
WHERE (EXISTS (SELECT 1 FROM "DIM_USERS__IDEMC_STAGE" AS s WHERE EQUAL_NULL(t."USER_ID", s."USER_ID"))) AND (t."USER_ID" IS NULL)
LIMIT 5;
-- 11. check: check unique(user_id) (error)
SELECT t."USER_ID", count(*) AS n FROM "ANALYTICS"."DIM_USERS" AS t
WHERE EXISTS (SELECT 1 FROM "DIM_USERS__IDEMC_STAGE" AS s WHERE EQUAL_NULL(t."USER_ID", s."USER_ID"))
GROUP BY t."USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 12. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'dim_users' AND EXISTS (SELECT 1 FROM "DIM_USERS__IDEMC_STAGE" WHERE "UPDATED_AT" IS NOT NULL);
-- 13. state: record the batch's maximum updated_at
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'dim_users', CAST(max("UPDATED_AT") AS VARCHAR), 'r1', NULL FROM "DIM_USERS__IDEMC_STAGE" HAVING max("UPDATED_AT") IS NOT NULL;
-- 14. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "DIM_USERS__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'dim_users' AND partition_key = '';
-- 15. commit
COMMIT;
-- 16. cleanup: drop the batch
DROP TABLE IF EXISTS "DIM_USERS__IDEMC_STAGE";
-- 17. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DIM_USERS"' AND run_id = 'r1';
-- 18. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
