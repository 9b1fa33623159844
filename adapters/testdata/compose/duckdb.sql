-- a partition write (delete_insert) whose model has a new column (a new column)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."events" AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '2026-07-02', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [schema] the model's new column note
ALTER TABLE "analytics"."events" ADD COLUMN "note" INTEGER;
-- [delete] replace the partition window 2026-07-02
DELETE FROM "analytics"."events" AS t
WHERE t."d" >= DATE '2026-07-02' AND t."d" < DATE '2026-07-03';
-- [insert] write the partition
INSERT INTO "analytics"."events" ("id", "d", "amount", "note")
SELECT "id", "d", "amount", "note" FROM (
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_batch
WHERE ("d" >= DATE '2026-07-02' AND "d" < DATE '2026-07-03') OR "d" IS NULL
) AS idemc_batch;
-- [validate] a NULL d would land in no partition
SELECT count(*) AS n FROM "analytics"."events"
WHERE "d" IS NULL
HAVING count(*) > 0;
-- [check] check not_null(id) (error)
SELECT * FROM "analytics"."events" AS t
WHERE (t."d" >= DATE '2026-07-02' AND t."d" < DATE '2026-07-03') AND (t."id" IS NULL)
LIMIT 5;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '2026-07-02';
-- [latest_end] the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'events' AND run_id = '20260703T060000.000Z-cafe0001';
-- [commit] 
COMMIT;

-- a merge with a watermark whose model has a new column (a new column)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."events" AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [schema] the model's new column note
ALTER TABLE "analytics"."events" ADD COLUMN "note" INTEGER;
-- [stage] the batch
CREATE OR REPLACE TEMP TABLE "events__idemc_stage_cafe0001" AS
SELECT id, d, amount, note FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT "id", count(*) AS n FROM "events__idemc_stage_cafe0001"
GROUP BY "id"
HAVING count(*) > 1
LIMIT 5;
-- [merge] update matched keys, insert new ones (null-safe)
MERGE INTO "analytics"."events" AS t
USING "events__idemc_stage_cafe0001" AS s
ON t."id" IS NOT DISTINCT FROM s."id"
WHEN MATCHED THEN UPDATE SET "d" = s."d", "amount" = s."amount", "note" = s."note"
WHEN NOT MATCHED THEN INSERT ("id", "d", "amount", "note") VALUES (s."id", s."d", s."amount", s."note");
-- [check] check not_null(id) (error)
SELECT * FROM "analytics"."events" AS t
WHERE (EXISTS (SELECT 1 FROM "events__idemc_stage_cafe0001" AS s WHERE t."id" IS NOT DISTINCT FROM s."id")) AND (t."id" IS NULL)
LIMIT 5;
-- [state] forget the old high-water mark if the batch has rows
DELETE FROM "analytics"."idemc_state" WHERE job_name = 'events' AND EXISTS (SELECT 1 FROM "events__idemc_stage_cafe0001" WHERE "d" IS NOT NULL);
-- [state] record the batch's maximum d
INSERT INTO "analytics"."idemc_state" (job_name, high_water, run_id, updated_at)
SELECT 'events', CAST(max("d") AS VARCHAR), '20260703T060000.000Z-cafe0001', NULL FROM "events__idemc_stage_cafe0001" HAVING max("d") IS NOT NULL;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [latest_end] the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'events' AND run_id = '20260703T060000.000Z-cafe0001';
-- [cleanup] drop the batch
DROP TABLE IF EXISTS "events__idemc_stage_cafe0001";
-- [commit] 
COMMIT;

-- a view becomes a table (the materialization changed)
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [schema] the materialization changed: replace the relation
DROP VIEW IF EXISTS "analytics"."events";
-- [publish] rebuild the table inside the transaction
CREATE OR REPLACE TABLE "analytics"."events" AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error)
SELECT * FROM "analytics"."events" AS t
WHERE (t."id" IS NULL)
LIMIT 5;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [latest_end] the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'events' AND run_id = '20260703T060000.000Z-cafe0001';
-- [commit] 
COMMIT;

-- a table becomes a view (the materialization changed)
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
BEGIN TRANSACTION;
-- [schema] the materialization changed: replace the relation
DROP TABLE IF EXISTS "analytics"."events";
-- [schema] the view, in the old relation's place
CREATE VIEW "analytics"."events" AS
SELECT id, d FROM raw.events;
-- [publish] replace the view
CREATE OR REPLACE VIEW "analytics"."events" AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) over the whole view
SELECT * FROM "analytics"."events" AS t
WHERE (t."id" IS NULL)
LIMIT 5;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [latest_end] the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'events' AND run_id = '20260703T060000.000Z-cafe0001';
-- [commit] 
COMMIT;

