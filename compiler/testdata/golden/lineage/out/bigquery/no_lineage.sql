-- unit no_lineage  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=no_lineage,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`no_lineage` AS
SELECT * FROM (
SELECT order_id FROM `analytics`.`orders_daily`
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'no_lineage', '', 'running', NULL, <started_at>, NULL, <attempt>, '20d9d968fe20993c', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fccbc01cd72d16aee52ab2df', 'r:r1');
-- 3. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 4. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`no_lineage`;
-- 5. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`no_lineage` (`order_id`)
SELECT `order_id` FROM (
SELECT order_id FROM `analytics`.`orders_daily`
) AS idemc_batch;
-- 6. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'no_lineage', '', 'succeeded', (SELECT count(*) FROM `analytics`.`no_lineage`), <started_at>, <ended_at>, <attempt>, '20d9d968fe20993c', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'fccbc01cd72d16aee52ab2df', 'r:r1';
-- 7. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
