-- unit event_log_daily  partition 2026-07-02  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=event_log_daily,idemc_partition=2026-07-02,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`event_log_daily`
PARTITION BY `event_date` AS
SELECT * FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'd9fa778eaf45b575', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '2e30999bfe7f70ca96cb8ad3', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`event_log_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`event_log_daily`/2026-07-02'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`event_log_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. begin: the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- 5. insert: append the batch (allow_append: a rerun adds the rows again)
--    deferred to the script's commit
INSERT INTO `analytics`.`event_log_daily` (`event_id`, `event_date`, `kind`)
SELECT `event_id`, `event_date`, `kind` FROM (
SELECT * FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL
) AS idemc_batch;
-- 6. validate: check not_null(event_date) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT count(*) AS n FROM `analytics`.`event_log_daily`
WHERE `event_date` IS NULL
HAVING count(*) > 0
) AS 'idemc check not_null(event_date)';
-- 7. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'event_log_daily', '2026-07-02', 'succeeded', (SELECT count(*) FROM `analytics`.`event_log_daily` AS t WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'), <started_at>, <ended_at>, <attempt>, 'd9fa778eaf45b575', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '2e30999bfe7f70ca96cb8ad3', 'r:r1';
-- 8. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 9. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`event_log_daily`/2026-07-02' AND run_id = 'r1';
