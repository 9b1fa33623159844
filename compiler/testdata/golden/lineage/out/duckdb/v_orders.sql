-- unit v_orders  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'v_orders', '', 'running', NULL, <started_at>, NULL, <attempt>, '7a8417a972931992', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a2abe68927fae07a385701ed', 'r:r1');
-- 2. begin
BEGIN TRANSACTION;
-- 3. publish: replace the view
CREATE OR REPLACE VIEW "main"."v_orders" AS
-- a view writes no rows: lineage_columns from [models] skips it
SELECT order_id, amount FROM "main"."orders_daily";
-- 4. audit_finish: record success with the row count, in the write's transaction
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'v_orders' AND partition_key = '';
-- 5. commit
COMMIT;
