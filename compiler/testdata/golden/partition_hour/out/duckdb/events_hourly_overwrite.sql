-- unit events_hourly_overwrite  partition 2026-07-02T13  (incremental insert_overwrite)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."events_hourly_overwrite" AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly_overwrite', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, '38a5dd503c6c0b9b', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '253a2a0ebc78ce23012f9e98', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. delete: replace the partition window 2026-07-02T13 (insert_overwrite is delete + insert on this engine)
DELETE FROM "main"."events_hourly_overwrite" AS t
WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00';
-- 5. insert: write the partition
INSERT INTO "main"."events_hourly_overwrite" ("event_id", "event_at", "kind")
SELECT "event_id", "event_at", "kind" FROM (
SELECT * FROM (
SELECT event_id, event_at, kind
FROM "raw"."events"
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE ("event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND "event_at" < TIMESTAMP '2026-07-02 14:00:00') OR "event_at" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM "main"."events_hourly_overwrite"
WHERE "event_at" IS NULL
HAVING count(*) > 0;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."events_hourly_overwrite" AS t WHERE t."event_at" >= TIMESTAMP '2026-07-02 13:00:00' AND t."event_at" < TIMESTAMP '2026-07-02 14:00:00'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_hourly_overwrite' AND partition_key = '2026-07-02T13';
-- 8. commit
COMMIT;
