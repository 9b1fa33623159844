-- unit v_orders  partition -  (view)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"v_orders"}';
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'v_orders', '', 'running', NULL, <started_at>, NULL, <attempt>, 'c2e2091b2e8c7bba', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '76acf0787af69524211f4da0', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."V_ORDERS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."V_ORDERS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."V_ORDERS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."V_ORDERS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."V_ORDERS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."V_ORDERS"', 'r1', CURRENT_TIMESTAMP);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW "ANALYTICS"."V_ORDERS" AS
-- a view writes no rows: lineage_columns from [models] skips it
SELECT order_id, amount FROM "ANALYTICS"."ORDERS_DAILY";
-- 5. audit_finish: record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'v_orders' AND partition_key = '';
-- 6. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."V_ORDERS"' AND run_id = 'r1';
-- 7. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
