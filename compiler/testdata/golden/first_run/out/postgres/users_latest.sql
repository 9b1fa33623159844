-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."users_latest" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "raw"."users"
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_latest', '', 'analytics', 'users_latest', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '8bb08706e6edf475', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '96799e4187ca0fd5519bfe7f', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, '8bb08706e6edf475', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '96799e4187ca0fd5519bfe7f', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."users_latest"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."users_latest"', 0));
-- 6. stage: the batch
CREATE TEMP TABLE "users_latest__idemc_stage" ON COMMIT DROP AS
SELECT user_id, name, updated_at
FROM "raw"."users";
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "user_id", count(*) AS n FROM "users_latest__idemc_stage"
GROUP BY "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."users_latest" AS t
USING "users_latest__idemc_stage" AS s
ON t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "updated_at" = s."updated_at"
WHEN NOT MATCHED THEN INSERT ("user_id", "name", "updated_at") VALUES (s."user_id", s."name", s."updated_at");
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "users_latest__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_latest' AND partition_key = '';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_latest' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_latest' AND run_id = 'r1';
-- 11. commit
COMMIT;
