-- unit no_lineage  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"no_lineage"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."NO_LINEAGE" AS
SELECT * FROM (
SELECT order_id FROM "ANALYTICS"."ORDERS_DAILY"
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, '0e39af5e8922ba9a', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '51d838a9ee88d704f1f67ed6', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."NO_LINEAGE", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."NO_LINEAGE"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."NO_LINEAGE"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."NO_LINEAGE"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."NO_LINEAGE"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."NO_LINEAGE"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."NO_LINEAGE" ("ORDER_ID")
SELECT "ORDER_ID" FROM (
SELECT order_id FROM "ANALYTICS"."ORDERS_DAILY"
) AS idemc_batch;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."NO_LINEAGE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'no_lineage' AND partition_key = '';
-- 8. commit
COMMIT;
-- 9. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."NO_LINEAGE"' AND run_id = 'r1';
-- 10. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
