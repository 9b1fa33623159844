-- unit events_hourly_overwrite  partition 2026-07-02T13  (incremental insert_overwrite)
-- 1. prepare: the destination, partitioned by event_at, if it does not exist yet
--    labels idemc_attempt=0,idemc_model=events_hourly_overwrite,idemc_partition=2026-07-02t13,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`events_hourly_overwrite`
PARTITION BY TIMESTAMP_TRUNC(`event_at`, HOUR) AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly_overwrite', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, '1ff1d2ef8f6b9b33', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '723393dc9824d64eb113b065', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`events_hourly_overwrite`/2026-07-02T13, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_hourly_overwrite`/2026-07-02T13' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_hourly_overwrite`/2026-07-02T13' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_hourly_overwrite`/2026-07-02T13' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events_hourly_overwrite`/2026-07-02T13'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events_hourly_overwrite`/2026-07-02T13', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: build the partition in a staging table (expires in a day if a run dies)
--    job stage
CREATE OR REPLACE TABLE `analytics`.`events_hourly_overwrite__idemc_stage_2026070213_0c53fdac`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE (`event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND `event_at` < TIMESTAMP '2026-07-02 14:00:00') OR `event_at` IS NULL;
-- 5. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_hourly_overwrite__idemc_stage_2026070213_0c53fdac`
WHERE `event_at` IS NULL
HAVING count(*) > 0;
-- 6. publish: replace partition 2026-07-02T13 atomically: a query job writing events_hourly_overwrite$2026070213 with WRITE_TRUNCATE
--    job publish; into analytics.events_hourly_overwrite$2026070213 (WRITE_TRUNCATE)
SELECT `event_id`, `event_at`, `kind` FROM `analytics`.`events_hourly_overwrite__idemc_stage_2026070213_0c53fdac`;
-- 7. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`events_hourly_overwrite__idemc_stage_2026070213_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_hourly_overwrite', '2026-07-02T13', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '1ff1d2ef8f6b9b33', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '723393dc9824d64eb113b065', 'r:r1';
-- 8. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`events_hourly_overwrite__idemc_stage_2026070213_0c53fdac`;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_hourly_overwrite`/2026-07-02T13' AND run_id = 'r1';
