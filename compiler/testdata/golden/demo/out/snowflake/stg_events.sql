-- unit stg_events  partition -  (view)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"stg_events"}';
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, '5f8a2741efd7c82d', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '5c8d4ff23f62c4e89edc0e27', 'r:r1');
-- 3. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW "ANALYTICS"."STG_EVENTS" AS
-- The latest version of every event; late rows arrive with a later loaded_at.
SELECT source_system, source_id, event_version, event_date, user_id, amount, loaded_at
FROM (
  SELECT
    e.source_system, e.source_id, e.event_version, e.event_date, e.user_id, e.amount, e.loaded_at,
    row_number() OVER (PARTITION BY e.source_system, e.source_id ORDER BY e.event_version DESC, e.loaded_at DESC) AS version_rank
  FROM "RAW"."STAGING_EVENTS" AS e
) AS versions
WHERE version_rank = 1;
-- 4. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM "ANALYTICS"."STG_EVENTS" AS t
WHERE (t."SOURCE_SYSTEM" IS NULL OR t."SOURCE_ID" IS NULL)
LIMIT 5;
-- 5. audit_finish: record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'stg_events' AND partition_key = '';
-- 6. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
