-- unit stg_events  partition -  (view)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('stg_events', '', 'analytics', 'stg_events', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'cf8ef769a805925f', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad7d02c5c93dee68cd14ba1f', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf8ef769a805925f', 'g1', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad7d02c5c93dee68cd14ba1f', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."stg_events"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."stg_events"', 0));
-- 5. publish: replace the view
CREATE OR REPLACE VIEW "analytics"."stg_events" AS
-- The latest version of every event; late rows arrive with a later loaded_at.
SELECT source_system, source_id, event_version, event_date, user_id, amount, loaded_at
FROM (
  SELECT
    e.source_system, e.source_id, e.event_version, e.event_date, e.user_id, e.amount, e.loaded_at,
    row_number() OVER (PARTITION BY e.source_system, e.source_id ORDER BY e.event_version DESC, e.loaded_at DESC) AS version_rank
  FROM "raw"."staging_events" AS e
) AS versions
WHERE version_rank = 1;
-- 6. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM "analytics"."stg_events" AS t
WHERE (t."source_system" IS NULL OR t."source_id" IS NULL)
LIMIT 5;
-- 7. audit_finish: record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'stg_events' AND partition_key = '';
-- 8. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'stg_events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'stg_events' AND run_id = 'r1';
-- 9. commit
COMMIT;
