-- the state tables
CREATE SCHEMA IF NOT EXISTS "analytics";
CREATE TABLE IF NOT EXISTS "analytics"."idemc_audit" (
  run_id TEXT NOT NULL,
  job_name TEXT NOT NULL,
  partition_key TEXT NOT NULL,
  status TEXT NOT NULL,
  row_count BIGINT,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  attempt BIGINT,
  code_hash TEXT,
  git_commit TEXT,
  target TEXT,
  as_of TIMESTAMP,
  error TEXT,
  checks TEXT,
  inputs TEXT,
  data_version TEXT
);
CREATE TABLE IF NOT EXISTS "analytics"."idemc_state" (
  job_name TEXT NOT NULL,
  high_water TEXT,
  run_id TEXT,
  updated_at TIMESTAMP
);
CREATE TABLE IF NOT EXISTS "analytics"."idemc_runs" (
  run_id TEXT NOT NULL,
  command TEXT,
  options TEXT,
  target TEXT,
  as_of TIMESTAMP,
  git_commit TEXT,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  outcome TEXT,
  retry_of TEXT,
  succeeded BIGINT,
  failed BIGINT,
  skipped BIGINT
);

-- sync_all_columns: retype id INTEGER → INT8 and amount BIGINT → TEXT in place (rows kept)
ALTER TABLE "analytics"."events"
  ALTER COLUMN "id" TYPE INT8 USING CAST("id" AS INT8),
  ALTER COLUMN "amount" TYPE TEXT USING CAST("amount" AS TEXT);

-- append_new_columns / sync_all_columns: add a column (batch type TEXT)
ALTER TABLE "analytics"."events" ADD COLUMN "note" TEXT;

-- sync_all_columns: drop a column
ALTER TABLE "analytics"."events" DROP COLUMN "old";

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS "analytics"."events" CASCADE;

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
BEGIN;
-- [lock] serialize writers of this unit until commit
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."events"', 0));
-- [stage] the batch
CREATE TEMP TABLE "events__idemc_stage" ON COMMIT DROP AS
SELECT id, d, amount FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT "id", count(*) AS n FROM "events__idemc_stage"
GROUP BY "id"
HAVING count(*) > 1
LIMIT 5;
-- [delete] column types changed: drop the table to recreate it, with the views that read it (CASCADE)
DROP TABLE IF EXISTS "analytics"."events" CASCADE;
-- [insert] full refresh: recreate the table with the batch's columns and rows
CREATE TABLE "analytics"."events" AS
SELECT "id", "d", "amount" FROM "events__idemc_stage";
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'events' AND partition_key = '';
-- [commit] 
COMMIT;

-- the views that read a table the write recreates (read before the write)
WITH RECURSIVE deps (oid, depth) AS (
  SELECT rw.ev_class, 1 FROM pg_depend dep JOIN pg_rewrite rw ON rw.oid = dep.objid
  WHERE dep.classid = 'pg_rewrite'::regclass AND dep.refobjid = to_regclass('"analytics"."totals"') AND rw.ev_class <> dep.refobjid
  UNION
  SELECT rw.ev_class, deps.depth + 1 FROM deps JOIN pg_depend dep ON dep.refobjid = deps.oid JOIN pg_rewrite rw ON rw.oid = dep.objid
  WHERE dep.classid = 'pg_rewrite'::regclass AND rw.ev_class <> dep.refobjid
)
SELECT n.nspname, c.relname, pg_get_viewdef(c.oid) FROM deps
JOIN pg_class c ON c.oid = deps.oid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v'
GROUP BY n.nspname, c.relname, c.oid
ORDER BY max(deps.depth), n.nspname, c.relname;

-- table model whose column types changed (recreate in the write: true)
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN;
-- [lock] serialize writers of this unit until commit
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."totals"', 0));
-- [delete] column types changed: drop the table to recreate it, with the views that read it (CASCADE)
DROP TABLE IF EXISTS "analytics"."totals" CASCADE;
-- [insert] recreate the table with the model's columns and rows
CREATE TABLE "analytics"."totals" AS
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id;
-- [publish] recreate the view analytics.totals_v, dropped with the table
CREATE VIEW "analytics"."totals_v" AS
SELECT totals.user_id,
    totals.n
   FROM analytics.totals;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'totals' AND partition_key = '';
-- [commit] 
COMMIT;

-- view model whose columns changed in a way CREATE OR REPLACE VIEW cannot take
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals_v', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN;
-- [lock] serialize writers of this unit until commit
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."totals_v"', 0));
-- [delete] the view's columns changed: drop it, with the views that read it (CASCADE)
DROP VIEW IF EXISTS "analytics"."totals_v" CASCADE;
-- [publish] create the view with its new columns
CREATE VIEW "analytics"."totals_v" AS
SELECT user_id, n FROM analytics.totals;
-- [publish] recreate the view analytics.top, dropped with it
CREATE VIEW "analytics"."top" AS
SELECT totals_v.user_id
   FROM analytics.totals_v;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'totals_v' AND partition_key = '';
-- [commit] 
COMMIT;

