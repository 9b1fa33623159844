-- unit orders_daily  partition 2026-07-02  (incremental insert_overwrite)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."orders_daily" AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-02', 'main', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'c102c5cdc4c9513e', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e288fb4af804b80d1a7d8145', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'c102c5cdc4c9513e', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e288fb4af804b80d1a7d8145', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-07-02 (insert_overwrite is delete + insert on this engine)
DELETE FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03';
-- 6. insert: write the partition
INSERT INTO "main"."orders_daily" ("order_id", "order_date", "user_id", "amount")
SELECT "order_id", "order_date", "user_id", "amount" FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("order_date" >= DATE '2026-07-02' AND "order_date" < DATE '2026-07-03') OR "order_date" IS NULL
) AS idemc_batch;
-- 7. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "main"."orders_daily"
WHERE "order_date" IS NULL
HAVING count(*) > 0;
-- 8. check: check not_null(order_id) (error)
SELECT * FROM "main"."orders_daily" AS t
WHERE (t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03') AND (t."order_id" IS NULL)
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."orders_daily" AS t WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-02';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_daily' AND partition_key = '2026-07-02' AND dest_schema = 'main' AND dest_name = 'orders_daily' AND run_id = 'r1';
-- 11. commit
COMMIT;
