-- unit stg_events  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf8ef769a805925f', 'g1', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad7d02c5c93dee68cd14ba1f', 'r:r1');
-- 2. begin
BEGIN;
-- 3. lock: serialize writers of this unit until commit
--    lock "analytics"."stg_events"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."stg_events"', 0));
-- 4. publish: replace the view
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
-- 5. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM "analytics"."stg_events" AS t
WHERE (t."source_system" IS NULL OR t."source_id" IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'stg_events' AND partition_key = '';
-- 7. commit
COMMIT;
