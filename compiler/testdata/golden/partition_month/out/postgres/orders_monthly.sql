-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."orders_monthly" AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. prepare: an index on the partition column: a window's delete and NULL check read only the window
CREATE INDEX IF NOT EXISTS "orders_monthly__idemc_order_month" ON "analytics"."orders_monthly" ("order_month");
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, '59cd7a438e3d5230', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '3645388812f1422ac9c81936', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."orders_monthly"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."orders_monthly"/2026-06', 0));
-- 6. delete: replace the partition window 2026-06
DELETE FROM "analytics"."orders_monthly" AS t
WHERE t."order_month" >= DATE '2026-06-01' AND t."order_month" < DATE '2026-07-01';
-- 7. insert: write the partition
INSERT INTO "analytics"."orders_monthly" ("order_id", "order_month", "amount")
SELECT "order_id", "order_month", "amount" FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE ("order_month" >= DATE '2026-06-01' AND "order_month" < DATE '2026-07-01') OR "order_month" IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM "analytics"."orders_monthly"
WHERE "order_month" IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."orders_monthly" AS t WHERE t."order_month" >= DATE '2026-06-01' AND t."order_month" < DATE '2026-07-01'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_monthly' AND partition_key = '2026-06';
-- 10. commit
COMMIT;
