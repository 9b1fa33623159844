-- unit orders_by_seq  partition -  (incremental merge)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"orders_by_seq"}';
-- 2. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."ORDERS_BY_SEQ" AS
SELECT * FROM (
SELECT order_id, order_seq, amount
FROM "RAW"."ORDERS"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_by_seq', '', 'running', NULL, <started_at>, NULL, <attempt>, 'f78ebc1fc70c8048', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'fcd870f190e5590a87ec8475', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."ORDERS_BY_SEQ", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_BY_SEQ"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_BY_SEQ"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_BY_SEQ"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."ORDERS_BY_SEQ"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."ORDERS_BY_SEQ"', 'r1', CURRENT_TIMESTAMP);
-- 5. stage: the batch
CREATE OR REPLACE TEMPORARY TABLE "ORDERS_BY_SEQ__IDEMC_STAGE" AS
SELECT order_id, order_seq, amount
FROM "RAW"."ORDERS"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807;
-- 6. begin
BEGIN TRANSACTION;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "ORDER_ID", count(*) AS n FROM "ORDERS_BY_SEQ__IDEMC_STAGE"
GROUP BY "ORDER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."ORDERS_BY_SEQ" AS t
USING "ORDERS_BY_SEQ__IDEMC_STAGE" AS s
ON EQUAL_NULL(t."ORDER_ID", s."ORDER_ID")
WHEN MATCHED THEN UPDATE SET "ORDER_SEQ" = s."ORDER_SEQ", "AMOUNT" = s."AMOUNT"
WHEN NOT MATCHED THEN INSERT ("ORDER_ID", "ORDER_SEQ", "AMOUNT") VALUES (s."ORDER_ID", s."ORDER_SEQ", s."AMOUNT");
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'orders_by_seq' AND EXISTS (SELECT 1 FROM "ORDERS_BY_SEQ__IDEMC_STAGE" WHERE "ORDER_SEQ" IS NOT NULL);
-- 10. state: record the batch's maximum order_seq
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'orders_by_seq', CAST(max("ORDER_SEQ") AS VARCHAR), 'r1', NULL FROM "ORDERS_BY_SEQ__IDEMC_STAGE" HAVING max("ORDER_SEQ") IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ORDERS_BY_SEQ__IDEMC_STAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_by_seq' AND partition_key = '';
-- 12. commit
COMMIT;
-- 13. cleanup: drop the batch
DROP TABLE IF EXISTS "ORDERS_BY_SEQ__IDEMC_STAGE";
-- 14. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."ORDERS_BY_SEQ"' AND run_id = 'r1';
-- 15. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
