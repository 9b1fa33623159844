-- unit customers  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."customers" AS
SELECT * FROM (
SELECT source_system, user_id, name, country, created_at
FROM "raw"."users"
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf4375c3d7283a1e', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '25c56839ef469b7dab9d598e', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."customers"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."customers"', 0));
-- 5. stage: the batch
CREATE TEMP TABLE "customers__idemc_stage" ON COMMIT DROP AS
SELECT source_system, user_id, name, country, created_at
FROM "raw"."users";
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "source_system", "user_id", count(*) AS n FROM "customers__idemc_stage"
GROUP BY "source_system", "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. delete: full refresh: replace every row
DELETE FROM "analytics"."customers";
-- 8. insert: write the batch
INSERT INTO "analytics"."customers" ("source_system", "user_id", "name", "country", "created_at")
SELECT "source_system", "user_id", "name", "country", "created_at" FROM "customers__idemc_stage";
-- 9. check: check not_null(user_id) (error)
SELECT * FROM "analytics"."customers" AS t
WHERE (EXISTS (SELECT 1 FROM "customers__idemc_stage" AS s WHERE t."source_system" IS NOT DISTINCT FROM s."source_system" AND t."user_id" IS NOT DISTINCT FROM s."user_id")) AND (t."user_id" IS NULL)
LIMIT 5;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "customers__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 11. commit
COMMIT;
