-- unit orders_by_seq  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."orders_by_seq" AS
SELECT * FROM (
SELECT order_id, order_seq, amount
FROM "raw"."orders"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_by_seq', '', 'analytics', 'orders_by_seq', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'b11d711b70fab51c', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '05a28b45257380645634b3c7', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_by_seq', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b11d711b70fab51c', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '05a28b45257380645634b3c7', 'r:r1');
-- 4. begin
BEGIN;
-- 5. lock: serialize writers of this unit until commit
--    lock "analytics"."orders_by_seq"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."orders_by_seq"', 0));
-- 6. stage: the batch
CREATE TEMP TABLE "orders_by_seq__idemc_stage" ON COMMIT DROP AS
SELECT order_id, order_seq, amount
FROM "raw"."orders"
WHERE order_seq > 41 AND order_seq <= 9223372036854775807;
-- 7. validate: refuse a batch that repeats a key before writing anything
SELECT "order_id", count(*) AS n FROM "orders_by_seq__idemc_stage"
GROUP BY "order_id"
HAVING count(*) > 1
LIMIT 5;
-- 8. merge: update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."orders_by_seq" AS t
USING "orders_by_seq__idemc_stage" AS s
ON t."order_id" IS NOT DISTINCT FROM s."order_id"
WHEN MATCHED THEN UPDATE SET "order_seq" = s."order_seq", "amount" = s."amount"
WHEN NOT MATCHED THEN INSERT ("order_id", "order_seq", "amount") VALUES (s."order_id", s."order_seq", s."amount");
-- 9. state: forget the old high-water mark if the batch has rows
DELETE FROM "analytics"."idemc_state" WHERE job_name = 'orders_by_seq' AND EXISTS (SELECT 1 FROM "orders_by_seq__idemc_stage" WHERE "order_seq" IS NOT NULL);
-- 10. state: record the batch's maximum order_seq
INSERT INTO "analytics"."idemc_state" (job_name, high_water, run_id, updated_at)
SELECT 'orders_by_seq', CAST(max("order_seq") AS TEXT), 'r1', NULL FROM "orders_by_seq__idemc_stage" HAVING max("order_seq") IS NOT NULL;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "orders_by_seq__idemc_stage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_by_seq' AND partition_key = '';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_by_seq' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'orders_by_seq' AND run_id = 'r1';
-- 13. commit
COMMIT;
