-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."events_daily" AS
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS TEXT)) AS TEXT), ':', CAST(source_system AS TEXT)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS TEXT)) AS TEXT), ':', CAST(source_id AS TEXT)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS TEXT)) AS TEXT), ':', CAST(event_version AS TEXT)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM "analytics"."stg_events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. prepare: an index on the partition column: a window's delete and NULL check read only the window
CREATE INDEX IF NOT EXISTS "events_daily__idemc_event_date" ON "analytics"."events_daily" ("event_date");
-- 3. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_daily', '2026-07-02', 'analytics', 'events_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'cdc40a990c29166f', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1ba100f634fde6d872ffbb8c', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 4. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'cdc40a990c29166f', 'g1', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '1ba100f634fde6d872ffbb8c', 'r:r1');
-- 5. begin
BEGIN;
-- 6. lock: serialize writers of this unit until commit
--    lock "analytics"."events_daily"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."events_daily"/2026-07-02', 0));
-- 7. delete: replace the partition window 2026-07-02
DELETE FROM "analytics"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03';
-- 8. insert: write the partition
INSERT INTO "analytics"."events_daily" ("event_key", "event_date", "user_id", "amount_cents", "source_system")
SELECT "event_key", "event_date", "user_id", "amount_cents", "source_system" FROM (
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS TEXT)) AS TEXT), ':', CAST(source_system AS TEXT)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS TEXT)) AS TEXT), ':', CAST(source_id AS TEXT)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS TEXT)) AS TEXT), ':', CAST(event_version AS TEXT)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM "analytics"."stg_events"
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("event_date" >= DATE '2026-07-02' AND "event_date" < DATE '2026-07-03') OR "event_date" IS NULL
) AS idemc_batch;
-- 9. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM "analytics"."events_daily"
WHERE "event_date" IS NULL
HAVING count(*) > 0;
-- 10. check: check expect(sum(amount_cents) >= 0) (error)
SELECT ok FROM (SELECT (sum(amount_cents) >= 0) AS ok, count(*) AS n FROM "analytics"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03') AS c
WHERE n > 0 AND NOT coalesce(ok, FALSE);
-- 11. check: check min_rows(1) (warn)
SELECT n FROM (SELECT count(*) AS n FROM "analytics"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03') AS c
WHERE n < 1;
-- 12. check: check not_null(event_key, event_date, user_id) (error)
SELECT * FROM "analytics"."events_daily" AS t
WHERE (t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03') AND (t."event_key" IS NULL OR t."event_date" IS NULL OR t."user_id" IS NULL)
LIMIT 5;
-- 13. check: check row_count_matches(stg_events) (error)
SELECT w.n AS written, s.n AS source FROM
(SELECT count(*) AS n FROM "analytics"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03') AS w,
(SELECT count(*) AS n FROM "analytics"."stg_events" AS src
WHERE src."event_date" >= DATE '2026-07-02' AND src."event_date" < DATE '2026-07-03') AS s
WHERE w.n <> s.n;
-- 14. check: check unique(event_key) (error)
SELECT t."event_key", count(*) AS n FROM "analytics"."events_daily" AS t
WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
GROUP BY t."event_key"
HAVING count(*) > 1
LIMIT 5;
-- 15. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."events_daily" AS t WHERE t."event_date" >= DATE '2026-07-02' AND t."event_date" < DATE '2026-07-03'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_daily' AND partition_key = '2026-07-02';
-- 16. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'events_daily' AND run_id = 'r1';
-- 17. commit
COMMIT;
