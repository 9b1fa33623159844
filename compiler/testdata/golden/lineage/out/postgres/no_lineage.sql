-- unit no_lineage  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, '63cab355ee356660', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '86284bac58c07111df52184f', 'r:r1');
-- 2. begin
BEGIN;
-- 3. lock: serialize writers of this unit until commit
--    lock "analytics"."no_lineage"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."no_lineage"', 0));
-- 4. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."no_lineage" AS
SELECT * FROM (
SELECT order_id FROM "analytics"."orders_daily"
) AS idemc_shape LIMIT 0;
-- 5. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."no_lineage";
-- 6. insert: rebuild the rows
INSERT INTO "analytics"."no_lineage" ("order_id")
SELECT "order_id" FROM (
SELECT order_id FROM "analytics"."orders_daily"
) AS idemc_batch;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."no_lineage"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'no_lineage' AND partition_key = '';
-- 8. commit
COMMIT;
