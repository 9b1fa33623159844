-- unit users_table  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"users_table"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USERS_TABLE" AS
SELECT * FROM (
SELECT user_id, name FROM "RAW"."USERS"
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b66308b80eac3797', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, '7910c099d4930e948bb7f1a1', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USERS_TABLE", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_TABLE"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_TABLE"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_TABLE"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USERS_TABLE"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USERS_TABLE"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USERS_TABLE" ("USER_ID", "NAME")
SELECT "USER_ID", "NAME" FROM (
SELECT user_id, name FROM "RAW"."USERS"
) AS idemc_batch;
-- 7. check: check drift.row_count(window 7, ratio 0.25..4) (error)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM "ANALYTICS"."USERS_TABLE" AS t) AS c,
(SELECT median(l.row_count) AS median, count(*) AS k FROM (
  SELECT a.row_count FROM "ANALYTICS"."IDEMC_AUDIT" AS a
  WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
  ORDER BY a.ended_at DESC
  LIMIT 7
) AS l) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USERS_TABLE"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_table' AND partition_key = '';
-- 9. commit
COMMIT;
-- 10. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USERS_TABLE"' AND run_id = 'r1';
-- 11. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
