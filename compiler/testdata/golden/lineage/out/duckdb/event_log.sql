-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."event_log" AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind FROM "raw"."events"
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, 'ad1828a8132346b7', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad3f6cc96ff158d57becf8a3', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. stage: the batch
CREATE OR REPLACE TEMP TABLE "event_log__idemc_stage" AS
SELECT idemc_lineage.*, CAST('r1' AS VARCHAR) AS "_idemc_run_id", CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS "_idemc_as_of" FROM (
SELECT event_id, event_date, kind FROM "raw"."events"
) AS idemc_lineage;
-- 5. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO "main"."event_log" ("event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of")
SELECT "event_id", "event_date", "kind", "_idemc_run_id", "_idemc_as_of" FROM "event_log__idemc_stage";
-- 6. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "event_log__idemc_stage"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 7. cleanup: drop the batch
DROP TABLE IF EXISTS "event_log__idemc_stage";
-- 8. commit
COMMIT;
