-- unit users_table  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_table', '', 'analytics', 'users_table', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '400f891a5504eadd', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '750270f93a4e14a76f4a6172', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, '400f891a5504eadd', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '750270f93a4e14a76f4a6172', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."users_table"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."users_table"', 0));
-- 5. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."users_table" AS
SELECT * FROM (
SELECT user_id, name FROM "raw"."users"
) AS idemc_shape LIMIT 0;
-- 6. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."users_table";
-- 7. insert: rebuild the rows
INSERT INTO "analytics"."users_table" ("user_id", "name")
SELECT "user_id", "name" FROM (
SELECT user_id, name FROM "raw"."users"
) AS idemc_batch;
-- 8. check: check drift.row_count(window 7, ratio 0.25..4) (error)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM "analytics"."users_table" AS t) AS c,
(SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY l.row_count) AS median, count(*) AS k FROM (
  SELECT a.row_count FROM "analytics"."idemc_audit" AS a
  WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
  ORDER BY a.ended_at DESC
  LIMIT 7
) AS l) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."users_table"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_table' AND partition_key = '';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_table' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_table' AND run_id = 'r1';
-- 11. commit
COMMIT;
