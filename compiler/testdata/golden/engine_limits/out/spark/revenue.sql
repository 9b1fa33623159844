-- unit revenue  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'revenue', '', 'running', NULL, <started_at>, NULL, <attempt>, '26acfd7afd1b0115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7ada3a4142013e887baa960b', 'r:r1');
-- 2. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac` USING DELTA AS
SELECT country, sum(amount) AS amount FROM `raw`.`orders` GROUP BY country;
-- 3. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6` USING DELTA AS
SELECT * FROM `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`;
-- 4. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'revenue', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '26acfd7afd1b0115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '7ada3a4142013e887baa960b', 'r:r1';
-- 5. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`;
