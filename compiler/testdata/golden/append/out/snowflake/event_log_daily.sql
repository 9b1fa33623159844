-- unit event_log_daily  partition 2026-07-02  (incremental append)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"event_log_daily","partition":"2026-07-02"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENT_LOG_DAILY" AS
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "RAW"."EVENTS"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '90b2866badd89024', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'df7b31667beda936d4feac90', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "ANALYTICS"."EVENT_LOG_DAILY" ("EVENT_ID", "EVENT_DATE", "KIND")
SELECT "EVENT_ID", "EVENT_DATE", "KIND" FROM (
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "RAW"."EVENTS"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("EVENT_DATE" >= DATE '2026-07-02' AND "EVENT_DATE" < DATE '2026-07-03') OR "EVENT_DATE" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "ANALYTICS"."EVENT_LOG_DAILY"
WHERE "EVENT_DATE" IS NULL
HAVING count(*) > 0;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."EVENT_LOG_DAILY" AS t WHERE t."EVENT_DATE" >= DATE '2026-07-02' AND t."EVENT_DATE" < DATE '2026-07-03'
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log_daily' AND partition_key = '2026-07-02';
-- 8. commit
COMMIT;
-- 9. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
