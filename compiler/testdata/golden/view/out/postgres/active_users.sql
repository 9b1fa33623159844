-- unit active_users  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'bb7eca33b3ce4bb2', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '8e2a791ea093de205134b780', 'r:r1');
-- 2. begin
BEGIN;
-- 3. lock: serialize writers of this unit until commit
--    lock "analytics"."active_users"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."active_users"', 0));
-- 4. publish: replace the view
CREATE OR REPLACE VIEW "analytics"."active_users" AS
SELECT user_id, name, country FROM "raw"."users" WHERE active;
-- 5. check: check not_null(user_id) (error) over the whole view
SELECT * FROM "analytics"."active_users" AS t
WHERE (t."user_id" IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count, in the write's transaction
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'active_users' AND partition_key = '';
-- 7. commit
COMMIT;
