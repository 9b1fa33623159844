-- unit users_by_mark  partition -  (incremental merge)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`users_by_mark` USING DELTA AS
SELECT * FROM (
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 06:00:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_by_mark', '', 'running', NULL, <started_at>, NULL, <attempt>, '432332b8bc5273fb', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0873f4c41f82940d3fa9a9fe', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`users_by_mark`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_mark`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_mark`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_mark`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`users_by_mark`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`users_by_mark`', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`users_by_mark__idemc_stage_0c53fdac` USING DELTA AS
SELECT user_id, name, updated_at
FROM `raw`.`users`
WHERE updated_at >= TIMESTAMP '1970-01-01 00:00:00' AND updated_at < TIMESTAMP '2026-07-03 06:00:00';
-- 5. validate: refuse a batch that repeats a key before writing anything
SELECT `user_id`, count(*) AS n FROM `analytics`.`users_by_mark__idemc_stage_0c53fdac`
GROUP BY `user_id`
HAVING count(*) > 1
LIMIT 5;
-- 6. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.users_by_mark;
-- 7. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 8. insert: full refresh: replace every row in one Delta commit
INSERT OVERWRITE TABLE `analytics`.`users_by_mark` (`user_id`, `name`, `updated_at`)
SELECT `user_id`, `name`, `updated_at` FROM `analytics`.`users_by_mark__idemc_stage_0c53fdac`;
-- 9. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 10. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 11. state: record the batch's maximum updated_at (an empty batch keeps the old mark)
MERGE INTO `analytics`.`idemc_state` AS t
USING (SELECT 'users_by_mark' AS job_name, CAST(max(`updated_at`) AS STRING) AS high_water FROM `analytics`.`users_by_mark__idemc_stage_0c53fdac` HAVING max(`updated_at`) IS NOT NULL) AS s
ON t.job_name = s.job_name
WHEN MATCHED THEN UPDATE SET high_water = s.high_water, run_id = 'r1', updated_at = NULL
WHEN NOT MATCHED THEN INSERT (job_name, high_water, run_id, updated_at) VALUES (s.job_name, s.high_water, 'r1', NULL);
-- 12. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`users_by_mark__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'users_by_mark', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '432332b8bc5273fb', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '0873f4c41f82940d3fa9a9fe', 'r:r1';
-- 13. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`users_by_mark__idemc_stage_0c53fdac`;
-- 14. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`users_by_mark`' AND run_id = 'r1';
