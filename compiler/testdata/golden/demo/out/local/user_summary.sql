-- unit user_summary  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_summary', '', 'main', 'user_summary', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'c8223ea4b21bb750', 'local', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f625c021a4e637c634ab396b', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_summary', '', 'running', NULL, <started_at>, NULL, <attempt>, 'c8223ea4b21bb750', 'g1', 'local', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f625c021a4e637c634ab396b', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. publish: rebuild the table inside the transaction
--    answers with the rows it wrote
CREATE OR REPLACE TABLE "main"."user_summary" AS
WITH "__idemc_eph_valid_events" AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM "main"."events_daily"
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM "main"."dim_users" AS u
LEFT JOIN "__idemc_eph_valid_events" AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id;
-- 5. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "main"."user_summary" AS t) AS c
WHERE n < 1;
-- 6. check: check relationships(user_id -> dim_users.user_id) (error)
SELECT t."user_id" FROM "main"."user_summary" AS t
WHERE t."user_id" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "main"."dim_users" AS o WHERE o."user_id" = t."user_id")
LIMIT 5;
-- 7. check: check unique(user_id) (error)
SELECT t."user_id", count(*) AS n FROM "main"."user_summary" AS t
GROUP BY t."user_id"
HAVING count(*) > 1
LIMIT 5;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."user_summary"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_summary' AND partition_key = '';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_summary' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'user_summary' AND run_id = 'r1';
-- 10. commit
COMMIT;
