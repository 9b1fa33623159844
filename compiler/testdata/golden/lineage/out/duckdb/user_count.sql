-- unit user_count  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_count', '', 'main', 'user_count', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '2f1d4a61c86247be', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '77ec88cd2d58d611955b5de8', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, '2f1d4a61c86247be', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '77ec88cd2d58d611955b5de8', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. publish: rebuild the table inside the transaction
--    answers with the rows it wrote
CREATE OR REPLACE TABLE "main"."user_count" AS
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT count(*) AS users FROM "main"."users_latest"
) AS idemc_lineage;
-- 5. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."user_count"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_count' AND partition_key = '';
-- 6. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_count' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'user_count' AND run_id = 'r1';
-- 7. commit
COMMIT;
