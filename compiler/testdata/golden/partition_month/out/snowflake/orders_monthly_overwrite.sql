-- unit orders_monthly_overwrite  partition 2026-06  (incremental insert_overwrite)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"orders_monthly_overwrite","partition":"2026-06"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE" AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "RAW"."ORDERS"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly_overwrite', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '3e5802acd6e68856', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '838f090267d85c75515039b4', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06, waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. delete: replace the partition window 2026-06 (insert_overwrite is delete + insert on this engine)
DELETE FROM "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE" t
WHERE t."ORDER_MONTH" >= DATE '2026-06-01' AND t."ORDER_MONTH" < DATE '2026-07-01';
-- 7. insert: write the partition
INSERT INTO "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE" ("ORDER_ID", "ORDER_MONTH", "AMOUNT")
SELECT "ORDER_ID", "ORDER_MONTH", "AMOUNT" FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "RAW"."ORDERS"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE ("ORDER_MONTH" >= DATE '2026-06-01' AND "ORDER_MONTH" < DATE '2026-07-01') OR "ORDER_MONTH" IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"
WHERE "ORDER_MONTH" IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."ORDERS_MONTHLY_OVERWRITE" AS t WHERE t."ORDER_MONTH" >= DATE '2026-06-01' AND t."ORDER_MONTH" < DATE '2026-07-01'
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_monthly_overwrite' AND partition_key = '2026-06';
-- 10. commit
COMMIT;
-- 11. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_MONTHLY_OVERWRITE"/2026-06' AND run_id = 'r1';
-- 12. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
