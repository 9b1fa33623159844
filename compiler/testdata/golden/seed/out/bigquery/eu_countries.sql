-- unit eu_countries  partition -  (table)
-- 1. prepare: label this unit's jobs (run id, model, partition, attempt); job ids derive from them
SET @@query_label = 'idemc_attempt:0,idemc_model:eu_countries,idemc_run:r1';
-- 2. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`eu_countries` AS
SELECT * FROM (
SELECT code, name, population FROM `raw`.`countries` WHERE eu
) AS idemc_shape LIMIT 0;
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, '8d8e033bc33fef72', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c9ab4a4f16002c0f2e81be6a', 'r:r1');
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
TRUNCATE TABLE `analytics`.`eu_countries`;
-- 6. insert: rebuild the rows
INSERT INTO `analytics`.`eu_countries` (`code`, `name`, `population`)
SELECT `code`, `name`, `population` FROM (
SELECT code, name, population FROM `raw`.`countries` WHERE eu
) AS idemc_batch;
-- 7. check: check unique(code) (error) as an ASSERT inside the script: a failure rolls it back
ASSERT NOT EXISTS (
SELECT t.`code`, count(*) AS n FROM `analytics`.`eu_countries` AS t
GROUP BY t.`code`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc: check unique(code) failed';
-- 8. audit_finish: record success, in the script transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'eu_countries' AND partition_key = '';
-- 9. state: the audit row's row_count, counted inside the script transaction
UPDATE `analytics`.`idemc_audit` SET row_count = (SELECT count(*) FROM `analytics`.`eu_countries`)
WHERE run_id = 'r1' AND job_name = 'eu_countries' AND partition_key = '';
-- 10. commit: submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
