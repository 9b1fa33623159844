-- unit users_table  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, 'fe8f178582931ffd', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5733937476e1aa4196414106', 'r:r1');
-- 2. begin
BEGIN TRANSACTION;
-- 3. publish: rebuild the table inside the transaction
CREATE OR REPLACE TABLE "main"."users_table" AS
SELECT user_id, name FROM "raw"."users";
-- 4. check: check drift.row_count(window 7, ratio 0.25..4) (error)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM "main"."users_table" AS t) AS c,
(SELECT median(l.row_count) AS median, count(*) AS k FROM (
  SELECT a.row_count FROM "main"."idemc_audit" AS a
  WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
  ORDER BY a.ended_at DESC
  LIMIT 7
) AS l) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 5. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."users_table"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_table' AND partition_key = '';
-- 6. commit
COMMIT;
