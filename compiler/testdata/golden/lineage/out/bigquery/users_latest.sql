-- unit users_latest  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=users_latest,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`users_latest` AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_latest', '', 'running', NULL, <started_at>, NULL, <attempt>, '6878daad4efa4dca', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '3a5dd10c081f3de6f468060b', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_latest`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_latest`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_latest`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_latest`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_latest`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_latest`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`users_latest__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
) AS idemc_lineage;
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`users_latest__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. merge: update matched keys, insert new ones (null-safe)
--    deferred to the script's commit
MERGE INTO `analytics`.`users_latest` AS t
USING `analytics`.`users_latest__idemc_stage_0c53fdac` AS s
ON (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL))
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `_idemc_run_id` = s.`_idemc_run_id`, `_idemc_as_of` = s.`_idemc_as_of`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `updated_at`, `_idemc_run_id`, `_idemc_as_of`) VALUES (s.`user_id`, s.`name`, s.`updated_at`, s.`_idemc_run_id`, s.`_idemc_as_of`);
-- 8. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_latest', '', 'succeeded', (SELECT count(*) FROM `analytics`.`users_latest__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, '6878daad4efa4dca', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '3a5dd10c081f3de6f468060b', 'r:r1';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 10. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`users_latest__idemc_stage_0c53fdac`;
-- 11. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_latest`' AND run_id = 'r1';
