-- unit order_status  partition -  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."order_status" AS
SELECT * FROM (
SELECT source_system, order_id, status, amount
FROM "raw"."orders"
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('order_status', '', 'main', 'order_status', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'bb2adb72283e609f', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0787e40210a9750c08319bfd', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'order_status', '', 'running', NULL, <started_at>, NULL, <attempt>, 'bb2adb72283e609f', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0787e40210a9750c08319bfd', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. stage: the batch
CREATE OR REPLACE TEMP TABLE "order_status__idemc_stage" AS
SELECT source_system, order_id, status, amount
FROM "raw"."orders";
-- 6. validate: refuse a batch that repeats a key before writing anything
SELECT "source_system", "order_id", count(*) AS n FROM "order_status__idemc_stage"
GROUP BY "source_system", "order_id"
HAVING count(*) > 1
LIMIT 5;
-- 7. delete: delete the batch's keys (null-safe)
DELETE FROM "main"."order_status" AS t
WHERE EXISTS (SELECT 1 FROM "order_status__idemc_stage" AS s WHERE t."source_system" IS NOT DISTINCT FROM s."source_system" AND t."order_id" IS NOT DISTINCT FROM s."order_id");
-- 8. insert: write the batch
INSERT INTO "main"."order_status" ("source_system", "order_id", "status", "amount")
SELECT "source_system", "order_id", "status", "amount" FROM "order_status__idemc_stage";
-- 9. check: check unique(source_system, order_id) (error)
SELECT t."source_system", t."order_id", count(*) AS n FROM "main"."order_status" AS t
WHERE EXISTS (SELECT 1 FROM "order_status__idemc_stage" AS s WHERE t."source_system" IS NOT DISTINCT FROM s."source_system" AND t."order_id" IS NOT DISTINCT FROM s."order_id")
GROUP BY t."source_system", t."order_id"
HAVING count(*) > 1
LIMIT 5;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "order_status__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'order_status' AND partition_key = '';
-- 11. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'order_status' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'order_status' AND run_id = 'r1';
-- 12. cleanup: drop the batch
DROP TABLE IF EXISTS "order_status__idemc_stage";
-- 13. commit
COMMIT;
