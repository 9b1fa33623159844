-- unit orders_daily  partition 2026-07-02  (incremental insert_overwrite)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"orders_daily","partition":"2026-07-02"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."ORDERS_DAILY" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (
SELECT order_id, order_date, user_id, amount
FROM "RAW"."ORDERS"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'b6cc942fae88cc12', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'd42d0b198b79d02a6eca32d0', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."ORDERS_DAILY"/2026-07-02, waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_DAILY"/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_DAILY"/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_DAILY"/2026-07-02' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."ORDERS_DAILY"/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."ORDERS_DAILY"/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. delete: replace the partition window 2026-07-02 (insert_overwrite is delete + insert on this engine)
DELETE FROM "ANALYTICS"."ORDERS_DAILY" t
WHERE t."ORDER_DATE" >= DATE '2026-07-02' AND t."ORDER_DATE" < DATE '2026-07-03';
-- 7. insert: write the partition
INSERT INTO "ANALYTICS"."ORDERS_DAILY" ("ORDER_ID", "ORDER_DATE", "USER_ID", "AMOUNT", "_IDEMC_RUN_ID", "_IDEMC_AS_OF")
SELECT "ORDER_ID", "ORDER_DATE", "USER_ID", "AMOUNT", "_IDEMC_RUN_ID", "_IDEMC_AS_OF" FROM (
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_IDEMC_RUN_ID", CAST('2026-07-03 06:00:00'::TIMESTAMP_NTZ AS TIMESTAMP_NTZ) AS "_IDEMC_AS_OF" FROM (
SELECT order_id, order_date, user_id, amount
FROM "RAW"."ORDERS"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE ("ORDER_DATE" >= DATE '2026-07-02' AND "ORDER_DATE" < DATE '2026-07-03') OR "ORDER_DATE" IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "ANALYTICS"."ORDERS_DAILY"
WHERE "ORDER_DATE" IS NULL
HAVING count(*) > 0;
-- 9. check: check not_null(order_id) (error)
SELECT * FROM "ANALYTICS"."ORDERS_DAILY" AS t
WHERE (t."ORDER_DATE" >= DATE '2026-07-02' AND t."ORDER_DATE" < DATE '2026-07-03') AND (t."ORDER_ID" IS NULL)
LIMIT 5;
-- 10. check: check unique(order_id) (error)
SELECT t."ORDER_ID", count(*) AS n FROM "ANALYTICS"."ORDERS_DAILY" AS t
WHERE t."ORDER_DATE" >= DATE '2026-07-02' AND t."ORDER_DATE" < DATE '2026-07-03'
GROUP BY t."ORDER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."ORDERS_DAILY" AS t WHERE t."ORDER_DATE" >= DATE '2026-07-02' AND t."ORDER_DATE" < DATE '2026-07-03'
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-02';
-- 12. commit
COMMIT;
-- 13. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_DAILY"/2026-07-02' AND run_id = 'r1';
-- 14. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
