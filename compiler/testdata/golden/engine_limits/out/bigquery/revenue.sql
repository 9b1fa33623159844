-- unit revenue  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=revenue,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6` AS
SELECT * FROM (
SELECT country, sum(amount) AS amount FROM `raw`.`orders` GROUP BY country
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'revenue', '', 'running', NULL, <started_at>, NULL, <attempt>, 'dbe9fee1caa6ca3e', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7b265eea3d08211576d26538', 'r:r1');
-- 3. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 4. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`;
-- 5. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6` (`country`, `amount`)
SELECT `country`, `amount` FROM (
SELECT country, sum(amount) AS amount FROM `raw`.`orders` GROUP BY country
) AS idemc_batch;
-- 6. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'revenue', '', 'succeeded', (SELECT count(*) FROM `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`), <started_at>, <ended_at>, <attempt>, 'dbe9fee1caa6ca3e', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '7b265eea3d08211576d26538', 'r:r1';
-- 7. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
