-- unit v_orders  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'v_orders', '', 'running', NULL, <started_at>, NULL, <attempt>, '244e68665797591d', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bc81536e5294b41e243e4234', 'r:r1');
-- 2. begin
BEGIN;
-- 3. lock: serialize writers of this unit until commit
--    lock "analytics"."v_orders"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."v_orders"', 0));
-- 4. publish: replace the view
CREATE OR REPLACE VIEW "analytics"."v_orders" AS
-- a view writes no rows: lineage_columns from [models] skips it
SELECT order_id, amount FROM "analytics"."orders_daily";
-- 5. audit_finish: record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'v_orders' AND partition_key = '';
-- 6. commit
COMMIT;
