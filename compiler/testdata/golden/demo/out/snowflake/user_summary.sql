-- unit user_summary  partition -  (table)
-- 1. prepare: tag this unit's queries with the run id (QUERY_HISTORY)
ALTER SESSION SET QUERY_TAG = '{"idemc_run":"r1","model":"user_summary"}';
-- 2. prepare: the table, empty, if it does not exist yet (DDL, before BEGIN)
CREATE TABLE IF NOT EXISTS "ANALYTICS"."USER_SUMMARY" AS
SELECT * FROM (
WITH "__IDEMC_EPH_VALID_EVENTS" AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM "ANALYTICS"."EVENTS_DAILY"
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM "ANALYTICS"."DIM_USERS" AS u
LEFT JOIN "__IDEMC_EPH_VALID_EVENTS" AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO "ANALYTICS"."IDEMC_AUDIT" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_summary', '', 'running', NULL, <started_at>, NULL, <attempt>, '65020bf77c74cdac', 'g1', 'snowflake', '2026-07-03 06:00:00'::TIMESTAMP_NTZ, NULL, NULL, 'a2a576f1940cdee52945a389', 'r:r1');
-- 4. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock "ANALYTICS"."USER_SUMMARY", waiting at most 10m0s, released by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_SUMMARY"' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_SUMMARY"' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_SUMMARY"' AND run_id = <holder>
MERGE INTO "ANALYTICS"."IDEMC_LOCKS" AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '"ANALYTICS"."USER_SUMMARY"'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('"ANALYTICS"."USER_SUMMARY"', 'r1', CURRENT_TIMESTAMP);
-- 5. begin
BEGIN TRANSACTION;
-- 6. publish: replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)
INSERT OVERWRITE INTO "ANALYTICS"."USER_SUMMARY" ("USER_ID", "COUNTRY", "EVENTS", "REVENUE_CENTS", "FIRST_EVENT_DATE")
SELECT "USER_ID", "COUNTRY", "EVENTS", "REVENUE_CENTS", "FIRST_EVENT_DATE" FROM (
WITH "__IDEMC_EPH_VALID_EVENTS" AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM "ANALYTICS"."EVENTS_DAILY"
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM "ANALYTICS"."DIM_USERS" AS u
LEFT JOIN "__IDEMC_EPH_VALID_EVENTS" AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id
) AS idemc_batch;
-- 7. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "ANALYTICS"."USER_SUMMARY" AS t) AS c
WHERE n < 1;
-- 8. check: check relationships(user_id -> dim_users.user_id) (error)
SELECT t."USER_ID" FROM "ANALYTICS"."USER_SUMMARY" AS t
WHERE t."USER_ID" IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "ANALYTICS"."DIM_USERS" AS o WHERE o."USER_ID" = t."USER_ID")
LIMIT 5;
-- 9. check: check unique(user_id) (error)
SELECT t."USER_ID", count(*) AS n FROM "ANALYTICS"."USER_SUMMARY" AS t
GROUP BY t."USER_ID"
HAVING count(*) > 1
LIMIT 5;
-- 10. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "ANALYTICS"."USER_SUMMARY"
UPDATE "ANALYTICS"."IDEMC_AUDIT" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_summary' AND partition_key = '';
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's claim
DELETE FROM "ANALYTICS"."IDEMC_LOCKS" WHERE lock_key = '"ANALYTICS"."USER_SUMMARY"' AND run_id = 'r1';
-- 13. cleanup: untag the pooled session
ALTER SESSION UNSET QUERY_TAG;
