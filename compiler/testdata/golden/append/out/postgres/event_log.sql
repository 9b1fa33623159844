-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."event_log" AS
SELECT * FROM (
SELECT event_id, event_at, kind FROM "raw"."events"
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('event_log', '', 'analytics', 'event_log', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '4a3c31f76fa84f5a', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '6edcde5177de4ad4e6d22032', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '4a3c31f76fa84f5a', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '6edcde5177de4ad4e6d22032', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."event_log"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."event_log"', 0));
-- 6. stage: the batch
CREATE TEMP TABLE "event_log__idemc_stage" ON COMMIT DROP AS
SELECT event_id, event_at, kind FROM "raw"."events";
-- 7. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "analytics"."event_log" ("event_id", "event_at", "kind")
SELECT "event_id", "event_at", "kind" FROM "event_log__idemc_stage";
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "event_log__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'event_log' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'event_log' AND run_id = 'r1';
-- 10. commit
COMMIT;
