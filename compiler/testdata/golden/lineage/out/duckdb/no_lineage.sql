-- unit no_lineage  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf89c5b2f1045d10', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e9ac2f54202da3da3b18251f', 'r:r1');
-- 2. begin
BEGIN TRANSACTION;
-- 3. publish: rebuild the table inside the transaction
CREATE OR REPLACE TABLE "main"."no_lineage" AS
SELECT order_id FROM "main"."orders_daily";
-- 4. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."no_lineage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'no_lineage' AND partition_key = '';
-- 5. commit
COMMIT;
