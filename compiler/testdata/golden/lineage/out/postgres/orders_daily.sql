-- unit orders_daily  partition 2026-07-02  (incremental insert_overwrite)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."orders_daily" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS TEXT) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. prepare: an index on the partition column: a window's delete and NULL check read only the window
CREATE INDEX IF NOT EXISTS "orders_daily__idemc_order_date" ON "analytics"."orders_daily" ("order_date");
-- 3. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-02', 'analytics', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'dc99a4a301fac477', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bbbfdb045cc87c2ed8dd9924', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 4. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'dc99a4a301fac477', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'bbbfdb045cc87c2ed8dd9924', 'r:r1');
-- 5. begin
BEGIN;
-- 6. lock: serialize writers of this unit until commit
--    lock "analytics"."orders_daily"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."orders_daily"/2026-07-02', 0));
-- 7. delete: replace the partition window 2026-07-02 (insert_overwrite is delete + insert on this engine)
DELETE FROM "analytics"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03';
-- 8. insert: write the partition
INSERT INTO "analytics"."orders_daily" ("order_id", "order_date", "user_id", "amount", "_idemc_run_id", "_idemc_as_of")
SELECT "order_id", "order_date", "user_id", "amount", "_idemc_run_id", "_idemc_as_of" FROM (
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS TEXT) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE ("order_date" >= DATE '2026-07-02' AND "order_date" < DATE '2026-07-03') OR "order_date" IS NULL
) AS idemc_batch;
-- 9. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "analytics"."orders_daily"
WHERE "order_date" IS NULL
HAVING count(*) > 0;
-- 10. check: check not_null(order_id) (error)
SELECT * FROM "analytics"."orders_daily" AS t
WHERE (t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03') AND (t."order_id" IS NULL)
LIMIT 5;
-- 11. check: check unique(order_id) (error)
SELECT t."order_id", count(*) AS n FROM "analytics"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03'
GROUP BY t."order_id"
HAVING count(*) > 1
LIMIT 5;
-- 12. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."orders_daily" AS t WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03'
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-02';
-- 13. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'orders_daily' AND run_id = 'r1';
-- 14. commit
COMMIT;
