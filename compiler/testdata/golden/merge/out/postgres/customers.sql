-- unit customers  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."customers" AS
SELECT * FROM (
SELECT source_system, user_id, name, country, created_at
FROM "raw"."users"
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('customers', '', 'analytics', 'customers', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'cf4375c3d7283a1e', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '25c56839ef469b7dab9d598e', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'customers', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf4375c3d7283a1e', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '25c56839ef469b7dab9d598e', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."customers"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."customers"', 0));
-- 6. stage: the batch
CREATE TEMP TABLE "customers__idemc_stage" ON COMMIT DROP AS
SELECT source_system, user_id, name, country, created_at
FROM "raw"."users";
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "source_system", "user_id", count(*) AS n FROM "customers__idemc_stage"
GROUP BY "source_system", "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."customers" AS t
USING "customers__idemc_stage" AS s
ON t."source_system" IS NOT DISTINCT FROM s."source_system" AND t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "country" = s."country", "created_at" = s."created_at"
WHEN NOT MATCHED THEN INSERT ("source_system", "user_id", "name", "country", "created_at") VALUES (s."source_system", s."user_id", s."name", s."country", s."created_at");
-- 9. check: check not_null(user_id) (error)
SELECT * FROM "analytics"."customers" AS t
WHERE (EXISTS (SELECT 1 FROM "customers__idemc_stage" AS s WHERE t."source_system" IS NOT DISTINCT FROM s."source_system" AND t."user_id" IS NOT DISTINCT FROM s."user_id")) AND (t."user_id" IS NULL)
LIMIT 5;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "customers__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'customers' AND partition_key = '';
-- 11. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'customers' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'customers' AND run_id = 'r1';
-- 12. commit
COMMIT;
