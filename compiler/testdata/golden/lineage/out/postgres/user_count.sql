-- unit user_count  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_count', '', 'analytics', 'user_count', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'af7dede5bfa5342a', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '451311053e2118db1cc5b776', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, 'af7dede5bfa5342a', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '451311053e2118db1cc5b776', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."user_count"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."user_count"', 0));
-- 5. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."user_count" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS TEXT) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT count(*) AS users FROM "analytics"."users_latest"
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 6. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."user_count";
-- 7. insert: rebuild the rows
INSERT INTO "analytics"."user_count" ("users", "_idemc_run_id", "_idemc_as_of")
SELECT "users", "_idemc_run_id", "_idemc_as_of" FROM (
SELECT idemc_lineage.*, CAST('r1' AS TEXT) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT count(*) AS users FROM "analytics"."users_latest"
) AS idemc_lineage
) AS idemc_batch;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."user_count"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_count' AND partition_key = '';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_count' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'user_count' AND run_id = 'r1';
-- 10. commit
COMMIT;
