-- unit event_log_daily  partition 2026-07-02  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."event_log_daily" AS
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('event_log_daily', '2026-07-02', 'main', 'event_log_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'df99c3db859f8cea', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'd2a6e74c298d8535138f1bf6', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'df99c3db859f8cea', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'd2a6e74c298d8535138f1bf6', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "main"."event_log_daily" ("event_id", "event_date", "kind")
SELECT "event_id", "event_date", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("event_date" >= DATE '2026-07-02' AND "event_date" < DATE '2026-07-03') OR "event_date" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "main"."event_log_daily"
WHERE "event_date" IS NULL
HAVING count(*) > 0;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."event_log_daily" AS t WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log_daily' AND partition_key = '2026-07-02';
-- 8. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'event_log_daily' AND partition_key = '2026-07-02' AND dest_schema = 'main' AND dest_name = 'event_log_daily' AND run_id = 'r1';
-- 9. commit
COMMIT;
