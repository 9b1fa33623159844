-- unit orders_by_seq  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."orders_by_seq" AS
SELECT * FROM (
SELECT order_id, order_seq, amount
FROM "raw"."orders"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_by_seq', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b11d711b70fab51c', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '05a28b45257380645634b3c7', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."orders_by_seq"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."orders_by_seq"', 0));
-- 5. stage: the batch
CREATE TEMP TABLE "orders_by_seq__idemc_stage" ON COMMIT DROP AS
SELECT order_id, order_seq, amount
FROM "raw"."orders"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807;
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "order_id", count(*) AS n FROM "orders_by_seq__idemc_stage"
GROUP BY "order_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."orders_by_seq" AS t
USING "orders_by_seq__idemc_stage" AS s
ON t."order_id" IS NOT DISTINCT FROM s."order_id"
WHEN MATCHED THEN UPDATE SET "order_seq" = s."order_seq", "amount" = s."amount"
WHEN NOT MATCHED THEN INSERT ("order_id", "order_seq", "amount") VALUES (s."order_id", s."order_seq", s."amount");
-- 8. state: forget the old high-water mark if the batch has rows
DELETE FROM "analytics"."idemc_state" WHERE job_name = 'orders_by_seq' AND EXISTS (SELECT 1 FROM "orders_by_seq__idemc_stage" WHERE "order_seq" IS NOT NULL);
-- 9. state: record the batch's maximum order_seq
INSERT INTO "analytics"."idemc_state" (job_name, high_water, run_id, updated_at)
SELECT 'orders_by_seq', CAST(max("order_seq") AS TEXT), 'r1', NULL FROM "orders_by_seq__idemc_stage" HAVING max("order_seq") IS NOT NULL;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "orders_by_seq__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_by_seq' AND partition_key = '';
-- 11. commit
COMMIT;
