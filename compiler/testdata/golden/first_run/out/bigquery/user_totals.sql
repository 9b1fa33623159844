-- unit user_totals  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=user_totals,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`user_totals` AS
SELECT * FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM `raw`.`orders`
GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '2262f282c198ada3', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a0cf4eb1119826ad2c7bf616', 'r:r1');
-- 3. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 4. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`user_totals`;
-- 5. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`user_totals` (`user_id`, `orders`, `amount`)
SELECT `user_id`, `orders`, `amount` FROM (
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM `raw`.`orders`
GROUP BY user_id
) AS idemc_batch;
-- 6. check: check min_rows(1) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`user_totals` AS t) AS c
WHERE n < 1
) AS 'idemc check min_rows(1)';
-- 7. check: check unique(user_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`user_totals` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(user_id)';
-- 8. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_totals', '', 'succeeded', (SELECT count(*) FROM `analytics`.`user_totals`), <started_at>, <ended_at>, <attempt>, '2262f282c198ada3', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'a0cf4eb1119826ad2c7bf616', 'r:r1';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
