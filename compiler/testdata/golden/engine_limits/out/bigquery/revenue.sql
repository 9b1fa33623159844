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
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`;
-- 6. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6` (`country`, `amount`)
SELECT `country`, `amount` FROM (
SELECT country, sum(amount) AS amount FROM `raw`.`orders` GROUP BY country
) AS idemc_batch;
-- 7. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'revenue', '', 'succeeded', (SELECT count(*) FROM `analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`), <started_at>, <ended_at>, <attempt>, 'dbe9fee1caa6ca3e', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '7b265eea3d08211576d26538', 'r:r1';
-- 8. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`daily_revenue_by_country_and_product_category_for_finance_rep_x6`' AND run_id = 'r1';
