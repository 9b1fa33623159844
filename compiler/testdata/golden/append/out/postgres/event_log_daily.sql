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
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '1a9fbb512f4bf285', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fd81663cd0a59393e1da105b', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."event_log_daily"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."event_log_daily"/2026-07-02', 0));
-- 6. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "analytics"."event_log_daily" ("event_id", "event_date", "kind")
SELECT "event_id", "event_date", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("event_date" >= DATE '2026-07-02' AND "event_date" < DATE '2026-07-03') OR "event_date" IS NULL
) AS idemc_batch;
-- 7. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "analytics"."event_log_daily"
WHERE "event_date" IS NULL
HAVING count(*) > 0;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."event_log_daily" AS t WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log_daily' AND partition_key = '2026-07-02';
-- 9. commit
COMMIT;
