-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."event_log" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind FROM "raw"."events"
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "main"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('event_log', '', 'main', 'event_log', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'ad1828a8132346b7', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad3f6cc96ff158d57becf8a3', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, 'ad1828a8132346b7', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad3f6cc96ff158d57becf8a3', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. stage: the batch
CREATE OR REPLACE TEMP TABLE "event_log__idemc_stage" AS
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind FROM "raw"."events"
) AS idemc_lineage;
-- 6. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "main"."event_log" ("event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of")
SELECT "event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of" FROM "event_log__idemc_stage";
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "event_log__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 8. latest_end: the unit's latest state, with its audit row
UPDATE "main"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'event_log' AND partition_key = '' AND dest_schema = 'main' AND dest_name = 'event_log' AND run_id = 'r1';
-- 9. cleanup: drop the batch
DROP TABLE IF EXISTS "event_log__idemc_stage";
-- 10. commit
COMMIT;
