-- unit users_by_time  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."users_by_time" AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM "raw"."users"
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_by_time', '', 'analytics', 'users_by_time', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'ff568d2c94d2e1a8', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bf5529ec0783d67a684319a4', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_time', '', 'running', NULL, <started_at>, NULL, <attempt>, 'ff568d2c94d2e1a8', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bf5529ec0783d67a684319a4', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."users_by_time"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."users_by_time"', 0));
-- 6. stage: the batch
CREATE TEMP TABLE "users_by_time__idemc_stage" ON COMMIT DROP AS
SELECT user_id, name, updated_at
FROM "raw"."users"
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "user_id", count(*) AS n FROM "users_by_time__idemc_stage"
GROUP BY "user_id"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."users_by_time" AS t
USING "users_by_time__idemc_stage" AS s
ON t."user_id" IS NOT DISTINCT FROM s."user_id"
WHEN MATCHED THEN UPDATE SET "name" = s."name", "updated_at" = s."updated_at"
WHEN NOT MATCHED THEN INSERT ("user_id", "name", "updated_at") VALUES (s."user_id", s."name", s."updated_at");
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM "analytics"."idemc_state" WHERE job_name = 'users_by_time' AND EXISTS (SELECT 1 FROM "users_by_time__idemc_stage" WHERE "updated_at" IS NOT NULL);
-- 10. state: record the batch's maximum updated_at
INSERT INTO "analytics"."idemc_state" (job_name, high_water, run_id, updated_at)
SELECT 'users_by_time', CAST(max("updated_at") AS TEXT), 'r1', NULL FROM "users_by_time__idemc_stage" HAVING max("updated_at") IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "users_by_time__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_by_time' AND partition_key = '';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_by_time' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_by_time' AND run_id = 'r1';
-- 13. commit
COMMIT;
