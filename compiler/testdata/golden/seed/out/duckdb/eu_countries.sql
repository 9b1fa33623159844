-- unit eu_countries  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, '84390f163b7aa03e', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '8bbe0a814abf5ad61c511d72', 'r:r1');
-- 2. begin
BEGIN TRANSACTION;
-- 3. publish: rebuild the table inside the transaction
CREATE OR REPLACE TABLE "main"."eu_countries" AS
SELECT code, name, population FROM "raw"."countries" WHERE eu;
-- 4. check: check unique(code) (error)
SELECT t."code", count(*) AS n FROM "main"."eu_countries" AS t
GROUP BY t."code"
HAVING count(*) > 1
LIMIT 5;
-- 5. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."eu_countries"
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'eu_countries' AND partition_key = '';
-- 6. commit
COMMIT;
