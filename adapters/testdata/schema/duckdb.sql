-- the state tables
CREATE SCHEMA IF NOT EXISTS "analytics";
CREATE TABLE IF NOT EXISTS "analytics"."idemc_audit" (
  run_id VARCHAR NOT NULL,
  job_name VARCHAR NOT NULL,
  partition_key VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  row_count BIGINT,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  attempt BIGINT,
  code_hash VARCHAR,
  git_commit VARCHAR,
  target VARCHAR,
  as_of TIMESTAMP,
  error VARCHAR,
  checks VARCHAR,
  inputs VARCHAR,
  data_version VARCHAR
);
CREATE TABLE IF NOT EXISTS "analytics"."idemc_state" (
  job_name VARCHAR NOT NULL,
  high_water VARCHAR,
  run_id VARCHAR,
  updated_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS "analytics"."idemc_runs" (
  run_id VARCHAR NOT NULL,
  command VARCHAR,
  options VARCHAR,
  target VARCHAR,
  as_of TIMESTAMP,
  git_commit VARCHAR,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  outcome VARCHAR,
  retry_of VARCHAR,
  succeeded BIGINT,
  failed BIGINT,
  skipped BIGINT
);

-- sync_all_columns: retype id INTEGER → BIGINT and amount BIGINT → VARCHAR in place (rows kept)
BEGIN TRANSACTION;
ALTER TABLE "analytics"."events" ALTER "id" SET DATA TYPE BIGINT USING CAST("id" AS BIGINT);
ALTER TABLE "analytics"."events" ALTER "amount" SET DATA TYPE VARCHAR USING CAST("amount" AS VARCHAR);
COMMIT;

-- append_new_columns / sync_all_columns: add a column (batch type VARCHAR)
ALTER TABLE "analytics"."events" ADD COLUMN "note" VARCHAR;

-- sync_all_columns: drop a column
ALTER TABLE "analytics"."events" DROP COLUMN "old";

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS "analytics"."events";

-- full refresh of an unpartitioned model whose column types changed (recreate in the write: true)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."events" AS
SELECT * FROM (
SELECT id, d, amount FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'events', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [stage] the batch
CREATE OR REPLACE TEMP TABLE "events__idemc_stage" AS
SELECT id, d, amount FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT "id", count(*) AS n FROM "events__idemc_stage"
GROUP BY "id"
HAVING count(*) > 1
LIMIT 5;
-- [publish] full refresh, column types changed: replace the table's definition and rows inside the transaction
CREATE OR REPLACE TABLE "analytics"."events" AS
SELECT "id", "d", "amount" FROM "events__idemc_stage";
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'events' AND partition_key = '';
-- [cleanup] drop the batch
DROP TABLE IF EXISTS "events__idemc_stage";
-- [commit] 
COMMIT;

-- table model whose column types changed (recreate in the write: false)
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [publish] rebuild the table inside the transaction
CREATE OR REPLACE TABLE "analytics"."totals" AS
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'totals' AND partition_key = '';
-- [commit] 
COMMIT;

