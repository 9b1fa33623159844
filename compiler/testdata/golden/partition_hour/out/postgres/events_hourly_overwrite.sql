-- unit events_hourly_overwrite  partition 2026-07-02T13  (incremental insert_overwrite)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."events_hourly_overwrite" AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. prepare: an index on the partition column: a window's delete and NULL check read only the window
CREATE INDEX IF NOT EXISTS "events_hourly_overwrite__idemc_event_at" ON "analytics"."events_hourly_overwrite" ("event_at");
-- 3. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_hourly_overwrite', '2026-07-02T13', 'analytics', 'events_hourly_overwrite', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'b6ab144cf7d166ac', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '6d3f1f3349445fb97da31c08', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 4. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly_overwrite', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, 'b6ab144cf7d166ac', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '6d3f1f3349445fb97da31c08', 'r:r1');
-- 5. begin
BEGIN;
-- 6. lock: serialize writers of this unit until commit
--    lock "analytics"."events_hourly_overwrite"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."events_hourly_overwrite"/2026-07-02T13', 0));
-- 7. delete: replace the partition window 2026-07-02T13 (insert_overwrite is delete + insert on this engine)
DELETE FROM "analytics"."events_hourly_overwrite" AS t
WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00';
-- 8. insert: write the partition
INSERT INTO "analytics"."events_hourly_overwrite" ("event_id", "event_at", "kind")
SELECT "event_id", "event_at", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE ("event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND "event_at" < TIMESTAMP '2026-07-02 14:00:00') OR "event_at" IS NULL
) AS idemc_batch;
-- 9. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM "analytics"."events_hourly_overwrite"
WHERE "event_at" IS NULL
HAVING count(*) > 0;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."events_hourly_overwrite" AS t WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_hourly_overwrite' AND partition_key = '2026-07-02T13';
-- 11. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_hourly_overwrite' AND partition_key = '2026-07-02T13' AND dest_schema = 'analytics' AND dest_name = 'events_hourly_overwrite' AND run_id = 'r1';
-- 12. commit
COMMIT;
