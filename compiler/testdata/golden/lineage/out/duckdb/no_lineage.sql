-- unit no_lineage  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('no_lineage', '', 'main', 'no_lineage', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'cf89c5b2f1045d10', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e9ac2f54202da3da3b18251f', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, 'cf89c5b2f1045d10', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'e9ac2f54202da3da3b18251f', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. publish: rebuild the table inside the transaction
--    answers with the rows it wrote
CREATE OR REPLACE TABLE "main"."no_lineage" AS
SELECT order_id FROM "main"."orders_daily";
-- 5. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."no_lineage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'no_lineage' AND partition_key = '';
-- 6. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'no_lineage' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'no_lineage' AND run_id = 'r1';
-- 7. commit
COMMIT;
