-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."users_latest" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT user_id, name, updated_at
FROM "raw"."users"
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, '115ca6bab74e4125', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c7aba63ca6044615b5857923', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. stage: the batch
CREATE OR REPLACE TEMP TABLE "users_latest__idemc_stage" AS
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT user_id, name, updated_at
FROM "raw"."users"
) AS idemc_lineage;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT "user_id", count(*) AS n FROM "users_latest__idemc_stage"
GROUP BY "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 6. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "main"."users_latest" AS t
USING "users_latest__idemc_stage" AS s
ON t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "_idemc_run_id" = s."_idemc_run_id", "_idemc_as_of" = s."_idemc_as_of"
WHEN NOT MATCHED THEN INSERT ("user_id", "name", "updated_at", "_idemc_run_id", "_idemc_as_of") VALUES (s."user_id", s."name", s."updated_at", s."_idemc_run_id", s."_idemc_as_of");
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "users_latest__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_latest' AND partition_key = '';
-- 8. cleanup: drop the batch
DROP TABLE IF EXISTS "users_latest__idemc_stage";
-- 9. commit
COMMIT;
