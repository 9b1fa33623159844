-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=events_daily,idemc_partition=2026-07-02,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily`
PARTITION BY `event_date` AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'f35a0976e5d1817d', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'fe034f641ddbb037dac68ef6', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`events_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events_daily`/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. delete: replace the partition window 2026-07-02
--    deferred to the script's commit
DELETE FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03';
-- 6. insert: write the partition
--    deferred to the script's commit
INSERT INTO `analytics`.`events_daily` (`event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of`)
SELECT `event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of` FROM (
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL
) AS idemc_batch;
-- 7. validate: check not_null(event_date) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT count(*) AS n FROM `analytics`.`events_daily`
WHERE `event_date` IS NULL
HAVING count(*) > 0
) AS 'idemc check not_null(event_date)';
-- 8. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_daily', '2026-07-02', 'succeeded', (SELECT count(*) FROM `analytics`.`events_daily` AS t WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'), <started_at>, <ended_at>, <attempt>, 'f35a0976e5d1817d', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, 'fe034f641ddbb037dac68ef6', 'r:r1';
-- 9. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1';
