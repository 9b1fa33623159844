-- unit user_totals  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_totals', '', 'main', 'user_totals', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '5b92e8e272a6ada2', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '34930413d802d8480bd3bd33', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '5b92e8e272a6ada2', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '34930413d802d8480bd3bd33', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. publish: rebuild the table inside the transaction
--    answers with the rows it wrote
CREATE OR REPLACE TABLE "main"."user_totals" AS
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "raw"."orders"
GROUP BY user_id;
-- 5. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "main"."user_totals" AS t) AS c
WHERE n < 1;
-- 6. check: check unique(user_id) (error)
SELECT t."user_id", count(*) AS n FROM "main"."user_totals" AS t
GROUP BY t."user_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."user_totals"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_totals' AND partition_key = '';
-- 8. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_totals' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'user_totals' AND run_id = 'r1';
-- 9. commit
COMMIT;
