-- unit user_summary  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_summary', '', 'analytics', 'user_summary', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'b6013b3bb65dbdc7', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '26aec65f6dcb2016b761185d', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_summary', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b6013b3bb65dbdc7', 'g1', 'pg', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '26aec65f6dcb2016b761185d', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."user_summary"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."user_summary"', 0));
-- 5. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."user_summary" AS
SELECT * FROM (
WITH "__idemc_eph_valid_events" AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM "analytics"."events_daily"
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM "analytics"."dim_users" AS u
LEFT JOIN "__idemc_eph_valid_events" AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id
) AS idemc_shape LIMIT 0;
-- 6. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."user_summary";
-- 7. insert: rebuild the rows
INSERT INTO "analytics"."user_summary" ("user_id", "country", "events", "revenue_cents", "first_event_date")
SELECT "user_id", "country", "events", "revenue_cents", "first_event_date" FROM (
WITH "__idemc_eph_valid_events" AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM "analytics"."events_daily"
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM "analytics"."dim_users" AS u
LEFT JOIN "__idemc_eph_valid_events" AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id
) AS idemc_batch;
-- 8. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "analytics"."user_summary" AS t) AS c
WHERE n < 1;
-- 9. check: check relationships(user_id -> dim_users.user_id) (error)
SELECT t."user_id" FROM "analytics"."user_summary" AS t
WHERE t."user_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "analytics"."dim_users" AS o WHERE o."user_id" = t."user_id")
LIMIT 5;
-- 10. check: check unique(user_id) (error)
SELECT t."user_id", count(*) AS n FROM "analytics"."user_summary" AS t
GROUP BY t."user_id"
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."user_summary"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_summary' AND partition_key = '';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_summary' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'user_summary' AND run_id = 'r1';
-- 13. commit
COMMIT;
