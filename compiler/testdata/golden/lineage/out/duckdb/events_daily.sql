-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."events_daily" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_daily', '2026-07-02', 'main', 'events_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'bfe161b39d6f87e3', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f74520cd5ac94d973530a882', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'bfe161b39d6f87e3', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f74520cd5ac94d973530a882', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-07-02
DELETE FROM "main"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03';
-- 6. insert: write the partition
INSERT INTO "main"."events_daily" ("event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of")
SELECT "event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of" FROM (
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind
FROM "raw"."events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE ("event_date" >= DATE '2026-07-02' AND "event_date" < DATE '2026-07-03') OR "event_date" IS NULL
) AS idemc_batch;
-- 7. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "main"."events_daily"
WHERE "event_date" IS NULL
HAVING count(*) > 0;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."events_daily" AS t WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_daily' AND partition_key = '2026-07-02';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_daily' AND partition_key = '2026-07-02' AND dest_schema = 'main' AND dest_name = 'events_daily' AND run_id = 'r1';
-- 10. commit
COMMIT;
