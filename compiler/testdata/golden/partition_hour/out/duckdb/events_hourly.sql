-- unit events_hourly  partition 2026-07-02T13  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."events_hourly" AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_hourly', '2026-07-02T13', 'main', 'events_hourly', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '609ad34f99e7c5b2', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0bb07686d96b2000b3317481', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, '609ad34f99e7c5b2', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0bb07686d96b2000b3317481', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-07-02T13
DELETE FROM "main"."events_hourly" AS t
WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00';
-- 6. insert: write the partition
INSERT INTO "main"."events_hourly" ("event_id", "event_at", "kind")
SELECT "event_id", "event_at", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE ("event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND "event_at" < TIMESTAMP '2026-07-02 14:00:00') OR "event_at" IS NULL
) AS idemc_batch;
-- 7. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM "main"."events_hourly"
WHERE "event_at" IS NULL
HAVING count(*) > 0;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."events_hourly" AS t WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_hourly' AND partition_key = '2026-07-02T13';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_hourly' AND partition_key = '2026-07-02T13' AND dest_schema = 'main' AND dest_name = 'events_hourly' AND run_id = 'r1';
-- 10. commit
COMMIT;
