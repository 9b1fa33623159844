-- unit active_users  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'active_users', '', 'running', NULL, <started_at>, NULL, <attempt>, 'b537e16613d26537', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'f045fd42acb3f7e6418440b2', 'r:r1');
-- 2. begin
BEGIN TRANSACTION;
-- 3. publish: replace the view
CREATE OR REPLACE VIEW "main"."active_users" AS
SELECT user_id, name, country FROM "raw"."users" WHERE active;
-- 4. check: check not_null(user_id) (error) over the whole view
SELECT * FROM "main"."active_users" AS t
WHERE (t."user_id" IS NULL)
LIMIT 5;
-- 5. audit_finish: record success with the row count, in the write's transaction
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'active_users' AND partition_key = '';
-- 6. commit
COMMIT;
