-- unit event_log_daily  partition 2026-07-02  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."event_log_daily" AS
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. prepare: an index on the partition column: a window's delete and NULL check read only the window
CREATE INDEX IF NOT EXISTS "event_log_daily__idemc_event_date" ON "analytics"."event_log_daily" ("event_date");
-- 3. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('event_log_daily', '2026-07-02', 'analytics', 'event_log_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '1a9fbb512f4bf285', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fd81663cd0a59393e1da105b', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 4. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '1a9fbb512f4bf285', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fd81663cd0a59393e1da105b', 'r:r1');
-- 5. begin
BEGIN;
-- 6. lock: serialize writers of this unit until commit
--    lock "analytics"."event_log_daily"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."event_log_daily"/2026-07-02', 0));
-- 7. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "analytics"."event_log_daily" ("event_id", "event_date", "kind")
SELECT "event_id", "event_date", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("event_date" >= DATE '2026-07-02' AND "event_date" < DATE '2026-07-03') OR "event_date" IS NULL
) AS idemc_batch;
-- 8. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "analytics"."event_log_daily"
WHERE "event_date" IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."event_log_daily" AS t WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log_daily' AND partition_key = '2026-07-02';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'event_log_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'event_log_daily' AND run_id = 'r1';
-- 11. commit
COMMIT;
