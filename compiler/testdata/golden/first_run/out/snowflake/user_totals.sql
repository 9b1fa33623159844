-- unit user_totals  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"user_totals"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USER_TOTALS" AS
SELECT * FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "RAW"."ORDERS"
GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '7d14a36bc621f437', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '9a5ab91151e4fa304dba96f6', 'r:r1');
-- 4. begin
BEGIN TRANSACTION;
-- 5. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USER_TOTALS" ("USER_ID", "ORDERS", "AMOUNT")
SELECT "USER_ID", "ORDERS", "AMOUNT" FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "RAW"."ORDERS"
GROUP BY user_id
) AS idemc_batch;
-- 6. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "ANALYTICS"."USER_TOTALS" AS t) AS c
WHERE n < 1;
-- 7. check: check unique(user_id) (error)
SELECT t."USER_ID", count(*) AS n FROM "ANALYTICS"."USER_TOTALS" AS t
GROUP BY t."USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USER_TOTALS"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_totals' AND partition_key = '';
-- 9. commit
COMMIT;
-- 10. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
