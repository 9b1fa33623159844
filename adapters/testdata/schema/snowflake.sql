-- the state tables
CREATE SCHEMA IF NOT EXISTS "ANALYTICS";
CREATE TABLE IF NOT EXISTS "ANALYTICS"."IDEMC_AUDIT" (
  run_id VARCHAR NOT NULL,
  job_name VARCHAR NOT NULL,
  partition_key VARCHAR NOT NULL,
  status VARCHAR NOT NULL,
  row_count BIGINT,
  started_at TIMESTAMP_NTZ,
  ended_at TIMESTAMP_NTZ,
  attempt BIGINT,
  code_hash VARCHAR,
  git_commit VARCHAR,
  target VARCHAR,
  as_of TIMESTAMP_NTZ,
  error VARCHAR,
  checks VARCHAR,
  inputs VARCHAR,
  data_version VARCHAR
);
CREATE TABLE IF NOT EXISTS "ANALYTICS"."IDEMC_STATE" (
  job_name VARCHAR NOT NULL,
  high_water VARCHAR,
  run_id VARCHAR,
  updated_at TIMESTAMP_NTZ
);
CREATE TABLE IF NOT EXISTS "ANALYTICS"."IDEMC_RUNS" (
  run_id VARCHAR NOT NULL,
  command VARCHAR,
  options VARCHAR,
  target VARCHAR,
  as_of TIMESTAMP_NTZ,
  git_commit VARCHAR,
  started_at TIMESTAMP_NTZ,
  ended_at TIMESTAMP_NTZ,
  outcome VARCHAR,
  retry_of VARCHAR,
  succeeded BIGINT,
  failed BIGINT,
  skipped BIGINT
);

-- sync_all_columns: retype id NUMBER(38, 0) → NUMBER(38, 2) and amount NUMBER(38, 0) → TEXT in place (rows kept)
CREATE OR REPLACE TABLE "ANALYTICS"."EVENTS" COPY GRANTS AS
SELECT CAST("ID" AS NUMBER(38, 2)) AS "ID", "D", CAST("AMOUNT" AS VARCHAR) AS "AMOUNT"
FROM "ANALYTICS"."EVENTS";

-- append_new_columns / sync_all_columns: add a column (batch type TEXT)
ALTER TABLE "ANALYTICS"."EVENTS" ADD COLUMN "NOTE" VARCHAR;

-- sync_all_columns: drop a column
ALTER TABLE "ANALYTICS"."EVENTS" DROP COLUMN "OLD";

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS";

-- column changes go to a copy of the destination, with its rows
CREATE OR REPLACE TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" CLONE "ANALYTICS"."EVENTS";

-- or an empty copy (a full rebuild)
CREATE OR REPLACE TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" LIKE "ANALYTICS"."EVENTS";

-- the checked copy replaces the destination
ALTER TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" SWAP WITH "ANALYTICS"."EVENTS";

-- a table becomes a view: the checked view takes its place
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS" RENAME TO "ANALYTICS"."EVENTS__IDEMC_OLD";
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW" RENAME TO "ANALYTICS"."EVENTS";

-- a view becomes a table (or an incremental table): the checked table takes its place
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS" RENAME TO "ANALYTICS"."EVENTS__IDEMC_OLD";
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW" RENAME TO "ANALYTICS"."EVENTS";

-- a relation a dead run left at __idemc_old goes back: a table, a view
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD" RENAME TO "ANALYTICS"."EVENTS";
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD" RENAME TO "ANALYTICS"."EVENTS";

-- full refresh of an unpartitioned model whose column types changed (recreate in the write: false)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"\\u003crun_id\\u003e","model":"events"}';
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENTS" AS
SELECT * FROM (
SELECT id, d, amount FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'events', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENTS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENTS"', '<run_id>', CURRENT_TIMESTAMP);
-- [stage] the batch
CREATE OR REPLACE TEMPORARY TABLE "EVENTS__IDEMC_STAGE" AS
SELECT id, d, amount FROM raw.events;
-- [begin] 
BEGIN TRANSACTION;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT "ID", count(*) AS n FROM "EVENTS__IDEMC_STAGE"
GROUP BY "ID"
HAVING count(*) > 1
LIMIT 5;
-- [delete] full refresh: replace every row
DELETE FROM "ANALYTICS"."EVENTS";
-- [insert] write the batch
INSERT INTO "ANALYTICS"."EVENTS" ("ID", "D", "AMOUNT")
SELECT "ID", "D", "AMOUNT" FROM "EVENTS__IDEMC_STAGE";
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'events' AND partition_key = '';
-- [commit] 
COMMIT;
-- [cleanup] drop the batch
DROP TABLE IF EXISTS "EVENTS__IDEMC_STAGE";
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENTS"' AND run_id = '<run_id>';
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;

-- table model whose column types changed (recreate in the write: false)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"\\u003crun_id\\u003e","model":"totals"}';
-- [prepare] the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."TOTALS" AS
SELECT * FROM (
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."TOTALS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."TOTALS"', '<run_id>', CURRENT_TIMESTAMP);
-- [begin] 
BEGIN TRANSACTION;
-- [publish] replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."TOTALS" ("USER_ID", "N")
SELECT "USER_ID", "N" FROM (
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id
) AS idemc_batch;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'totals' AND partition_key = '';
-- [commit] 
COMMIT;
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."TOTALS"' AND run_id = '<run_id>';
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;

