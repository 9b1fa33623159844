-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet (DDL, outside the script)
--    labels idemc_attempt=0,idemc_model=events_daily,idemc_partition=2026-07-02,idemc_run=r1
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily`
PARTITION BY `event_date` AS
SELECT * FROM (
SELECT
  TO_HEX(MD5(CONCAT(CASE WHEN source_system IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(source_system AS STRING)) AS STRING), ':', CAST(source_system AS STRING)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(source_id AS STRING)) AS STRING), ':', CAST(source_id AS STRING)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(event_version AS STRING)) AS STRING), ':', CAST(event_version AS STRING)) END))) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '14d58dac52b2e9cf', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '612d202e9ee48cb8ab833556', 'r:r1');
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
INSERT INTO `analytics`.`events_daily` (`event_key`, `event_date`, `user_id`, `amount_cents`, `source_system`)
SELECT `event_key`, `event_date`, `user_id`, `amount_cents`, `source_system` FROM (
SELECT * FROM (
SELECT
  TO_HEX(MD5(CONCAT(CASE WHEN source_system IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(source_system AS STRING)) AS STRING), ':', CAST(source_system AS STRING)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(source_id AS STRING)) AS STRING), ':', CAST(source_id AS STRING)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(event_version AS STRING)) AS STRING), ':', CAST(event_version AS STRING)) END))) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
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
-- 8. check: check expect(sum(amount_cents) >= 0) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT ok FROM (SELECT (sum(amount_cents) >= 0) AS ok, count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n > 0 AND NOT coalesce(ok, FALSE)
) AS 'idemc check expect(sum(amount_cents) >= 0)';
-- 9. check: check not_null(event_key, event_date, user_id) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`events_daily` AS t
WHERE (t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AND (t.`event_key` IS NULL OR t.`event_date` IS NULL OR t.`user_id` IS NULL)
LIMIT 5
) AS 'idemc check not_null(event_key, event_date, user_id)';
-- 10. check: check row_count_matches(stg_events) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT w.n AS written, s.n AS source FROM
(SELECT count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS w,
(SELECT count(*) AS n FROM `analytics`.`stg_events` AS src
WHERE src.`event_date` >= DATE '2026-07-02' AND src.`event_date` < DATE '2026-07-03') AS s
WHERE w.n <> s.n
) AS 'idemc check row_count_matches(stg_events)';
-- 11. check: check unique(event_key) (error) as an ASSERT inside the script: a failure rolls it back
--    deferred to the script's commit
ASSERT NOT EXISTS (
SELECT t.`event_key`, count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'
GROUP BY t.`event_key`
HAVING count(*) > 1
LIMIT 5
) AS 'idemc check unique(event_key)';
-- 12. audit_finish: record success and the row count, counted inside the script transaction
--    deferred to the script's commit
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_daily', '2026-07-02', 'succeeded', (SELECT count(*) FROM `analytics`.`events_daily` AS t WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'), <started_at>, <ended_at>, <attempt>, '14d58dac52b2e9cf', 'g1', 'bigquery', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '612d202e9ee48cb8ab833556', 'r:r1';
-- 13. commit: submit the buffered script; BigQuery commits it whole or not at all
--    job script
COMMIT TRANSACTION;
-- 14. check: check min_rows(1) (warn), on the committed region
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n < 1;
-- 15. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1';
