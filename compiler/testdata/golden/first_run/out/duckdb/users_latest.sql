-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."users_latest" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "raw"."users"
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_latest', '', 'main', 'users_latest', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '17ac39d81abeb5c2', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '925d3d0c2a3570c2546a24f6', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, '17ac39d81abeb5c2', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '925d3d0c2a3570c2546a24f6', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. stage: the batch
CREATE OR REPLACE TEMP TABLE "users_latest__idemc_stage" AS
SELECT user_id, name, updated_at
FROM "raw"."users";
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "user_id", count(*) AS n FROM "users_latest__idemc_stage"
GROUP BY "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "main"."users_latest" AS t
USING "users_latest__idemc_stage" AS s
ON t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "updated_at" = s."updated_at"
WHEN NOT MATCHED THEN INSERT ("user_id", "name", "updated_at") VALUES (s."user_id", s."name", s."updated_at");
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "users_latest__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_latest' AND partition_key = '';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_latest' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'users_latest' AND run_id = 'r1';
-- 10. cleanup: drop the batch
DROP TABLE IF EXISTS "users_latest__idemc_stage";
-- 11. commit
COMMIT;
