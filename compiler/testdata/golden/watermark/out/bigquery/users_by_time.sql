-- unit users_by_time  partition -  (incremental merge)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=users_by_time,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`users_by_time` AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_time', '', 'running', NULL, <started_at>, NULL, <attempt>, '760b0f3bc92b7df5', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '2c945fe7bee9204ca09d3acb', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_by_time`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_by_time`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_by_time`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: the batch, in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`users_by_time__idemc_stage_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`users_by_time__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 7. merge: update matched keys, insert new ones (null-safe)
--    deferred to the script's commit
MERGE INTO `analytics`.`users_by_time` AS t
USING `analytics`.`users_by_time__idemc_stage_0c53fdac` AS s
ON (t.`user_id` = s.`user_id` OR (t.`user_id` IS NULL AND s.`user_id` IS NULL))
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `updated_at` = s.`updated_at`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `updated_at`) VALUES (s.`user_id`, s.`name`, s.`updated_at`);
-- 8. state: forget the old high-water mark if the batch has rows
--    deferred to the script's commit
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'users_by_time' AND EXISTS (SELECT 1 FROM `analytics`.`users_by_time__idemc_stage_0c53fdac` WHERE `updated_at` IS NOT NULL);
-- 9. state: record the batch's maximum updated_at
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'users_by_time', CAST(max(`updated_at`) AS STRING), 'r1', NULL FROM `analytics`.`users_by_time__idemc_stage_0c53fdac` HAVING max(`updated_at`) IS NOT NULL;
-- 10. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_by_time', '', 'succeeded', (SELECT count(*) FROM `analytics`.`users_by_time__idemc_stage_0c53fdac`), <started_at>, <ended_at>, <attempt>, '760b0f3bc92b7df5', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '2c945fe7bee9204ca09d3acb', 'r:r1';
-- 11. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 12. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`users_by_time__idemc_stage_0c53fdac`;
-- 13. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = 'r1';
