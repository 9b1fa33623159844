-- unit user_totals  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, 'c8dbb2c7c6c2b301', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7710dcf04066ebc979d34dfc', 'r:r1');
-- 2. begin
BEGIN;
-- 3. lock: serialize writers of this unit until commit
--    lock "analytics"."user_totals"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."user_totals"', 0));
-- 4. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."user_totals" AS
SELECT * FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "raw"."orders"
GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- 5. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."user_totals";
-- 6. insert: rebuild the rows
INSERT INTO "analytics"."user_totals" ("user_id", "orders", "amount")
SELECT "user_id", "orders", "amount" FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM "raw"."orders"
GROUP BY user_id
) AS idemc_batch;
-- 7. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM "analytics"."user_totals" AS t) AS c
WHERE n < 1;
-- 8. check: check unique(user_id) (error)
SELECT t."user_id", count(*) AS n FROM "analytics"."user_totals" AS t
GROUP BY t."user_id"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."user_totals"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_totals' AND partition_key = '';
-- 10. commit
COMMIT;
