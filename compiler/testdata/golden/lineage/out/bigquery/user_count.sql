-- unit user_count  partition -  (table)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=user_count,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`user_count` AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT count(*) AS users FROM `analytics`.`users_latest`
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_count', '', 'running', NULL, <started_at>, NULL, <attempt>, '9a20d0353d3f524b', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '9fcef690c2816a99efe54de4', 'r:r1');
-- 3. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 4. delete: rebuild: empty the table inside the transaction (keeps its options and grants)
--    deferred to the script's commit
TRUNCATE TABLE `analytics`.`user_count`;
-- 5. insert: rebuild the rows
--    deferred to the script's commit
INSERT INTO `analytics`.`user_count` (`users`, `_idemc_run_id`, `_idemc_as_of`)
SELECT `users`, `_idemc_run_id`, `_idemc_as_of` FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT count(*) AS users FROM `analytics`.`users_latest`
) AS idemc_lineage
) AS idemc_batch;
-- 6. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_count', '', 'succeeded', (SELECT count(*) FROM `analytics`.`user_count`), <started_at>, <ended_at>, <attempt>, '9a20d0353d3f524b', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '9fcef690c2816a99efe54de4', 'r:r1';
-- 7. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
