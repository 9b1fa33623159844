-- a partition write (delete_insert) whose model has a new column (a new column on a copy)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"20260703T060000.000Z-cafe0001","model":"events","partition":"2026-07-02","attempt":1}';
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENTS" AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENTS"/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENTS"/2026-07-02', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" CLONE "ANALYTICS"."EVENTS";
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" ADD COLUMN "NOTE" INTEGER;
-- [begin] 
BEGIN TRANSACTION;
-- [delete] replace the partition window 2026-07-02
DELETE FROM "ANALYTICS"."EVENTS__IDEMC_NEW" t
WHERE t."D" >= DATE '2026-07-02' AND t."D" < DATE '2026-07-03';
-- [insert] write the partition
INSERT INTO "ANALYTICS"."EVENTS__IDEMC_NEW" ("ID", "D", "AMOUNT", "NOTE")
SELECT "ID", "D", "AMOUNT", "NOTE" FROM (
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_batch
WHERE ("D" >= DATE '2026-07-02' AND "D" < DATE '2026-07-03') OR "D" IS NULL
) AS idemc_batch;
-- [validate] a NULL d would land in no partition
SELECT count(*) AS n FROM "ANALYTICS"."EVENTS__IDEMC_NEW"
WHERE "D" IS NULL
HAVING count(*) > 0;
-- [check] check not_null(id) (error)
SELECT * FROM "ANALYTICS"."EVENTS__IDEMC_NEW" AS t
WHERE (t."D" >= DATE '2026-07-02' AND t."D" < DATE '2026-07-03') AND (t."ID" IS NULL)
LIMIT 5;
-- [commit] 
COMMIT;
-- [publish] put the checked relation in the destination's place
ALTER TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" SWAP WITH "ANALYTICS"."EVENTS";
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [begin] 
BEGIN TRANSACTION;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '2026-07-02';
-- [commit] 
COMMIT;
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENTS"/2026-07-02' AND run_id = '20260703T060000.000Z-cafe0001';

-- a merge with a watermark whose model has a new column (a new column on a copy)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"20260703T060000.000Z-cafe0001","model":"events","attempt":1}';
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENTS" AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENTS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENTS"', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" CLONE "ANALYTICS"."EVENTS";
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" ADD COLUMN "NOTE" INTEGER;
-- [stage] the batch
CREATE OR REPLACE TEMPORARY TABLE "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001" AS
SELECT id, d, amount, note FROM raw.events;
-- [begin] 
BEGIN TRANSACTION;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT "ID", count(*) AS n FROM "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001"
GROUP BY "ID"
HAVING count(*) > 1
LIMIT 5;
-- [merge] update matched keys, insert new ones (null-safe)
MERGE INTO "ANALYTICS"."EVENTS__IDEMC_NEW" AS t
USING "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001" AS s
ON EQUAL_NULL(t."ID", s."ID")
WHEN MATCHED THEN UPDATE SET "D" = s."D", "AMOUNT" = s."AMOUNT", "NOTE" = s."NOTE"
WHEN NOT MATCHED THEN INSERT ("ID", "D", "AMOUNT", "NOTE") VALUES (s."ID", s."D", s."AMOUNT", s."NOTE");
-- [check] check not_null(id) (error)
SELECT * FROM "ANALYTICS"."EVENTS__IDEMC_NEW" AS t
WHERE (EXISTS (SELECT 1 FROM "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001" AS s WHERE EQUAL_NULL(t."ID", s."ID"))) AND (t."ID" IS NULL)
LIMIT 5;
-- [commit] 
COMMIT;
-- [publish] put the checked relation in the destination's place
ALTER TABLE "ANALYTICS"."EVENTS__IDEMC_NEW" SWAP WITH "ANALYTICS"."EVENTS";
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [begin] 
BEGIN TRANSACTION;
-- [state] forget the old high-water mark if the batch has rows
DELETE FROM "ANALYTICS"."IDEMC_STATE" WHERE job_name = 'events' AND EXISTS (SELECT 1 FROM "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001" WHERE "D" IS NOT NULL);
-- [state] record the batch's maximum d
INSERT INTO "ANALYTICS"."IDEMC_STATE" (job_name, high_water, run_id, updated_at)
SELECT 'events', CAST(max("D") AS VARCHAR), '20260703T060000.000Z-cafe0001', NULL FROM "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001" HAVING max("D") IS NOT NULL;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [commit] 
COMMIT;
-- [cleanup] drop the batch
DROP TABLE IF EXISTS "EVENTS__IDEMC_NEW__IDEMC_STAGE_CAFE0001";
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENTS"' AND run_id = '20260703T060000.000Z-cafe0001';

-- a view becomes a table (the materialization changed, swapped in)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"20260703T060000.000Z-cafe0001","model":"events","attempt":1}';
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENTS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENTS"', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [schema] the new relation, aside: the write and its checks go to it
DROP VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [schema] the new relation, aside: the write and its checks go to it
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [schema] the new relation, aside: the write and its checks go to it
CREATE TABLE IF NOT EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW" AS
SELECT * FROM (
SELECT id, d FROM raw.events
) AS idemc_shape LIMIT 0;
-- [begin] 
BEGIN TRANSACTION;
-- [publish] replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."EVENTS__IDEMC_NEW" ("ID", "D")
SELECT "ID", "D" FROM (
SELECT id, d FROM raw.events
) AS idemc_batch;
-- [check] check not_null(id) (error)
SELECT * FROM "ANALYTICS"."EVENTS__IDEMC_NEW" AS t
WHERE (t."ID" IS NULL)
LIMIT 5;
-- [commit] 
COMMIT;
-- [publish] put the checked relation in the destination's place
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS" RENAME TO "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [publish] put the checked relation in the destination's place
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW" RENAME TO "ANALYTICS"."EVENTS";
-- [schema] drop the previous relation
DROP VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [begin] 
BEGIN TRANSACTION;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [commit] 
COMMIT;
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD" RENAME TO "ANALYTICS"."EVENTS";
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENTS"' AND run_id = '20260703T060000.000Z-cafe0001';

-- a table becomes a view (the materialization changed, swapped in)
-- [prepare] tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"20260703T060000.000Z-cafe0001","model":"events","attempt":1}';
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [schema] a leftover view or table from a dead run
DROP VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [schema] a leftover view or table from a dead run
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."EVENTS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."EVENTS"', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [stage] the view, aside: its checks read it before the swap
CREATE OR REPLACE VIEW "ANALYTICS"."EVENTS__IDEMC_NEW" AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) over the whole view
SELECT * FROM "ANALYTICS"."EVENTS__IDEMC_NEW" AS t
WHERE (t."ID" IS NULL)
LIMIT 5;
-- [publish] put the checked relation in the destination's place
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS" RENAME TO "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [publish] put the checked relation in the destination's place
ALTER VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW" RENAME TO "ANALYTICS"."EVENTS";
-- [schema] drop the previous relation
DROP TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD";
-- [audit_finish] record success with the row count
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [cleanup] release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."EVENTS"' AND run_id = '20260703T060000.000Z-cafe0001';
-- [cleanup] untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER TABLE IF EXISTS "ANALYTICS"."EVENTS__IDEMC_OLD" RENAME TO "ANALYTICS"."EVENTS";
-- [cleanup] the view, left by a failed unit
DROP VIEW IF EXISTS "ANALYTICS"."EVENTS__IDEMC_NEW";

