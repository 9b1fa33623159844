-- unit users_table  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_table', '', 'main', 'users_table', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'fe8f178582931ffd', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5733937476e1aa4196414106', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, 'fe8f178582931ffd', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5733937476e1aa4196414106', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. publish: rebuild the table inside the transaction
--    answers with the rows it wrote
CREATE OR REPLACE TABLE "main"."users_table" AS
SELECT user_id, name FROM "raw"."users";
-- 5. check: check drift.row_count(window 7, ratio 0.25..4) (error)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM "main"."users_table" AS t) AS c,
(SELECT median(l.row_count) AS median, count(*) AS k FROM (
  SELECT a.row_count FROM "main"."idemc_audit" AS a
  WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
  ORDER BY a.ended_at DESC
  LIMIT 7
) AS l) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 6. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."users_table"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_table' AND partition_key = '';
-- 7. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_table' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'users_table' AND run_id = 'r1';
-- 8. commit
COMMIT;
