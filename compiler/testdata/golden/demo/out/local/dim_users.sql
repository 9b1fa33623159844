-- unit dim_users  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."dim_users" AS
SELECT * FROM (
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM "raw"."users"
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('dim_users', '', 'main', 'dim_users', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '16c1a1eff662b215', 'local', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '4b9159b4f1d834ec73d47163', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'dim_users', '', 'running', NULL, <started_at>, NULL, <attempt>, '16c1a1eff662b215', 'g1', 'local', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '4b9159b4f1d834ec73d47163', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. stage: the batch
CREATE OR REPLACE TEMP TABLE "dim_users__idemc_stage" AS
SELECT
  user_id,
  name,
  country,
  updated_at,
  'shop' AS first_loaded_by
FROM "raw"."users"
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "user_id", count(*) AS n FROM "dim_users__idemc_stage"
GROUP BY "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "main"."dim_users" AS t
USING "dim_users__idemc_stage" AS s
ON t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "country" = s."country", "updated_at" = s."updated_at"
WHEN NOT MATCHED THEN INSERT ("user_id", "name", "country", "updated_at", "first_loaded_by") VALUES (s."user_id", s."name", s."country", s."updated_at", s."first_loaded_by");
-- 8. check: check accepted_values(country) (error)
SELECT t."country", count(*) AS n FROM "main"."dim_users" AS t
WHERE (EXISTS (SELECT 1 FROM "dim_users__idemc_stage" AS s WHERE t."user_id" IS NOT DISTINCT FROM s."user_id")) AND t."country" IS NOT NULL AND t."country" NOT IN ('DE', 'FR', 'US', 'JP')
GROUP BY t."country"
LIMIT 5;
-- 9. check: check not_null(user_id) (error)
SELECT * FROM "main"."dim_users" AS t
WHERE (EXISTS (SELECT 1 FROM "dim_users__idemc_stage" AS s WHERE t."user_id" IS NOT DISTINCT FROM s."user_id")) AND (t."user_id" IS NULL)
LIMIT 5;
-- 10. check: check unique(user_id) (error)
SELECT t."user_id", count(*) AS n FROM "main"."dim_users" AS t
WHERE EXISTS (SELECT 1 FROM "dim_users__idemc_stage" AS s WHERE t."user_id" IS NOT DISTINCT FROM s."user_id")
GROUP BY t."user_id"
HAVING count(*) > 1
LIMIT 5;
-- 11. state: forget the old high-water mark if the batch has rows
DELETE FROM "main"."idemc_state" WHERE job_name = 'dim_users' AND EXISTS (SELECT 1 FROM "dim_users__idemc_stage" WHERE "updated_at" IS NOT NULL);
-- 12. state: record the batch's maximum updated_at
INSERT INTO "main"."idemc_state" (job_name, high_water, run_id, updated_at)
SELECT 'dim_users', CAST(max("updated_at") AS VARCHAR), 'r1', NULL FROM "dim_users__idemc_stage" HAVING max("updated_at") IS NOT NULL;
-- 13. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "dim_users__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'dim_users' AND partition_key = '';
-- 14. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'dim_users' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'dim_users' AND run_id = 'r1';
-- 15. cleanup: drop the batch
DROP TABLE IF EXISTS "dim_users__idemc_stage";
-- 16. commit
COMMIT;
