-- unit revenue  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'revenue', '', 'running', NULL, <started_at>, NULL, <attempt>, '26acfd7afd1b0115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7ada3a4142013e887baa960b', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac` USING DELTA AS
SELECT country, sum(amount) AS amount FROM `raw`.`orders` GROUP BY country;
-- 4. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6` USING DELTA AS
SELECT * FROM `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`;
-- 5. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'revenue', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '26acfd7afd1b0115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '7ada3a4142013e887baa960b', 'r:r1';
-- 6. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`daily_revenue_by_country_and_product_cate_4b8be76f__idemc_stage_0c53fdac`;
-- 7. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = 'r1';
