-- unit event_log  partition -  (incremental append)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"event_log"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENT_LOG" AS
SELECT * FROM (
SELECT event_id, event_at, kind FROM "RAW"."EVENTS"
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '04ea322d1f666596', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'a431b4fbcc17db6ccf0d767a', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."EVENT_LOG", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENT_LOG"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENT_LOG"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENT_LOG"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENT_LOG"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENT_LOG"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "EVENT_LOG__IDEMC_STAGE" AS
SELECT event_id, event_at, kind FROM "RAW"."EVENTS";
-- 6. begin
BEGIN TRANSACTION;
-- 7. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "ANALYTICS"."EVENT_LOG" ("EVENT_ID", "EVENT_AT", "KIND")
SELECT "EVENT_ID", "EVENT_AT", "KIND" FROM "EVENT_LOG__IDEMC_STAGE";
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "EVENT_LOG__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 9. commit
COMMIT;
-- 10. cleanup: drop the batch
DROP TABLE IF EXISTS "EVENT_LOG__IDEMC_STAGE";
-- 11. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENT_LOG"' AND run_id = 'r1';
-- 12. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
