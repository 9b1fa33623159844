-- unit revenue  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"revenue"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6" AS
SELECT * FROM (
SELECT country, sum(amount) AS amount FROM "RAW"."ORDERS" GROUP BY country
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'revenue', '', 'running', NULL, <started_at>, NULL, <attempt>, '21798be12b868c4c', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '2a56c3fd1c7c49b0c57600dd', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6" ("COUNTRY", "AMOUNT")
SELECT "COUNTRY", "AMOUNT" FROM (
SELECT country, sum(amount) AS amount FROM "RAW"."ORDERS" GROUP BY country
) AS idemc_batch;
-- 7. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'revenue' AND partition_key = '';
-- 8. commit
COMMIT;
-- 9. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."DAILY_REVENUE_BY_COUNTRY_AND_PRODUCT_CATEGORY_FOR_FINANCE_REP_X6"' AND run_id = 'r1';
-- 10. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
