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
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USER_TOTALS", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_TOTALS"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_TOTALS"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_TOTALS"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USER_TOTALS"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USER_TOTALS"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USER_TOTALS" ("USER_ID", "ORDERS", "AMOUNT")
SELECT "USER_ID", "ORDERS", "AMOUNT" FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "RAW"."ORDERS"
GROUP BY user_id
) AS idemc_batch;
-- 7. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "ANALYTICS"."USER_TOTALS" AS t) AS c
WHERE n < 1;
-- 8. check: check unique(user_id) (error)
SELECT t."USER_ID", count(*) AS n FROM "ANALYTICS"."USER_TOTALS" AS t
GROUP BY t."USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USER_TOTALS"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_totals' AND partition_key = '';
-- 10. commit
COMMIT;
-- 11. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_TOTALS"' AND run_id = 'r1';
-- 12. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
