-- unit orders_monthly  partition 2026-06  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."orders_monthly" AS
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_monthly', '2026-06', 'main', 'orders_monthly', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'b5d8926246f94f5a', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0d5bc8ca57195d51ac487c06', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_monthly', '2026-06', 'running', NULL, <started_at>, NULL, <attempt>, 'b5d8926246f94f5a', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0d5bc8ca57195d51ac487c06', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-06
DELETE FROM "main"."orders_monthly" AS t
WHERE t."order_month" >= DATE '2026-06-01' AND t."order_month" < DATE '2026-07-01';
-- 6. insert: write the partition
INSERT INTO "main"."orders_monthly" ("order_id", "order_month", "amount")
SELECT "order_id", "order_month", "amount" FROM (
SELECT * FROM (
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-06-01' AND order_date < DATE '2026-07-01'
) AS idemc_batch
WHERE ("order_month" >= DATE '2026-06-01' AND "order_month" < DATE '2026-07-01') OR "order_month" IS NULL
) AS idemc_batch;
-- 7. validate: a NULL order_month would land in no partition
SELECT count(*) AS n FROM "main"."orders_monthly"
WHERE "order_month" IS NULL
HAVING count(*) > 0;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."orders_monthly" AS t WHERE t."order_month" >= DATE '2026-06-01' AND t."order_month" < DATE '2026-07-01'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_monthly' AND partition_key = '2026-06';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_monthly' AND partition_key = '2026-06' AND dest_schema = 'main' AND dest_name = 'orders_monthly' AND run_id = 'r1';
-- 10. commit
COMMIT;
