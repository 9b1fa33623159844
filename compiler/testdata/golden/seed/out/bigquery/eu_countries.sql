-- unit eu_countries  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=eu_countries,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`eu_countries` AS
SELECT * FROM (
SELECT code, name, population FROM `raw`.`countries` WHERE eu
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, '8d8e033bc33fef72', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c9ab4a4f16002c0f2e81be6a', 'r:r1');
-- 3. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 4. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`eu_countries`;
-- 5. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`eu_countries` (`code`, `name`, `population`)
SELECT `code`, `name`, `population` FROM (
SELECT code, name, population FROM `raw`.`countries` WHERE eu
) AS idemc_batch;
-- 6. check: check unique(code) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`code`, count(*) AS n FROM `analytics`.`eu_countries` AS t
GROUP BY t.`code`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(code)';
-- 7. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'eu_countries', '', 'succeeded', (SELECT count(*) FROM `analytics`.`eu_countries`), <started_at>, <ended_at>, <attempt>, '8d8e033bc33fef72', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'c9ab4a4f16002c0f2e81be6a', 'r:r1';
-- 8. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
