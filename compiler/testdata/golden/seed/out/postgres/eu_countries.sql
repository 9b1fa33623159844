-- unit eu_countries  partition -  (table)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO "analytics"."idemc_latest" (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('eu_countries', '', 'analytics', 'eu_countries', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '8beb80227116b1c2', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'eee84a8f045eadbc7d1356db', 'r:r1')
ON CONFLICT (job_name, partition_key, dest_schema, dest_name) DO UPDATE SET run_id = excluded.run_id, status = excluded.status, row_count = excluded.row_count, started_at = excluded.started_at, ended_at = excluded.ended_at, attempt = excluded.attempt, code_hash = excluded.code_hash, target = excluded.target, as_of = excluded.as_of, error = excluded.error, checks = excluded.checks, inputs = excluded.inputs, data_version = excluded.data_version
WHERE excluded.attempt > "idemc_latest".attempt OR (excluded.attempt = "idemc_latest".attempt AND excluded.started_at >= "idemc_latest".started_at);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "analytics"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, '8beb80227116b1c2', 'g1', 'postgres', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'eee84a8f045eadbc7d1356db', 'r:r1');
-- 3. begin
BEGIN;
-- 4. lock: serialize writers of this unit until commit
--    lock "analytics"."eu_countries"
SELECT pg_advisory_xact_lock(hashtextextended('"analytics"."eu_countries"', 0));
-- 5. prepare: the table, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "analytics"."eu_countries" AS
SELECT * FROM (
SELECT code, name, population FROM "raw"."countries" WHERE eu
) AS idemc_shape LIMIT 0;
-- 6. delete: TRUNCATE + INSERT keeps grants and dependent views
TRUNCATE "analytics"."eu_countries";
-- 7. insert: rebuild the rows
INSERT INTO "analytics"."eu_countries" ("code", "name", "population")
SELECT "code", "name", "population" FROM (
SELECT code, name, population FROM "raw"."countries" WHERE eu
) AS idemc_batch;
-- 8. check: check unique(code) (error)
SELECT t."code", count(*) AS n FROM "analytics"."eu_countries" AS t
GROUP BY t."code"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "analytics"."eu_countries"
UPDATE "analytics"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'eu_countries' AND partition_key = '';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE "analytics"."idemc_latest" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'eu_countries' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'eu_countries' AND run_id = 'r1';
-- 11. commit
COMMIT;
