-- unit users_by_time  partition -  (incremental merge)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`users_by_time` USING DELTA AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_time', '', 'running', NULL, <started_at>, NULL, <attempt>, '521a7ae940f6e237', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'a17131175dede44997336c4d', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_by_time`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_by_time`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_by_time`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`users_by_time__idemc_stage_0c53fdac` USING DELTA AS
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '2026-07-02 11:00:00' AND updated_at < TIMESTAMP '2026-07-03 05:55:00';
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`users_by_time__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.users_by_time;
-- 7. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 8. merge: update matched keys, insert new ones (null-safe <=>), in one Delta commit
MERGE INTO `analytics`.`users_by_time` AS t
USING `analytics`.`users_by_time__idemc_stage_0c53fdac` AS s
ON t.`user_id` <=> s.`user_id`
WHEN MATCHED THEN UPDATE SET `name` = s.`name`, `updated_at` = s.`updated_at`
WHEN NOT MATCHED THEN INSERT (`user_id`, `name`, `updated_at`) VALUES (s.`user_id`, s.`name`, s.`updated_at`);
-- 9. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 10. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 11. state: record the batch's maximum updated_at (an empty batch keeps the old mark)
MERGE INTO `analytics`.`idemc_state` AS t
USING (SELECT 'users_by_time' AS job_name, CAST(max(`updated_at`) AS STRING) AS high_water FROM `analytics`.`users_by_time__idemc_stage_0c53fdac` HAVING max(`updated_at`) IS NOT NULL) AS s
ON t.job_name = s.job_name
WHEN MATCHED THEN UPDATE SET high_water = s.high_water, run_id = 'r1', updated_at = NULL
WHEN NOT MATCHED THEN INSERT (job_name, high_water, run_id, updated_at) VALUES (s.job_name, s.high_water, 'r1', NULL);
-- 12. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`users_by_time__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_by_time', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '521a7ae940f6e237', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'a17131175dede44997336c4d', 'r:r1';
-- 13. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`users_by_time__idemc_stage_0c53fdac`;
-- 14. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_time`' AND run_id = 'r1';
