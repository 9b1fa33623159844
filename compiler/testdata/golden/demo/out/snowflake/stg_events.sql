-- unit stg_events  partition -  (view)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"stg_events"}';
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, '5f8a2741efd7c82d', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '5c8d4ff23f62c4e89edc0e27', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."STG_EVENTS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."STG_EVENTS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."STG_EVENTS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."STG_EVENTS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."STG_EVENTS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."STG_EVENTS"', 'r1', CURRENT_TIMESTAMP);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
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
-- 5. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM "ANALYTICS"."STG_EVENTS" AS t
WHERE (t."SOURCE_SYSTEM" IS NULL OR t."SOURCE_ID" IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'stg_events' AND partition_key = '';
-- 7. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."STG_EVENTS"' AND run_id = 'r1';
-- 8. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
