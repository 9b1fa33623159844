-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily` USING DELTA AS
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS STRING)) AS STRING), ':', CAST(source_system AS STRING)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS STRING)) AS STRING), ':', CAST(source_id AS STRING)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS STRING)) AS STRING), ':', CAST(event_version AS STRING)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '9d9a0cc8566a42e9', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '906787884921a897c828d5e8', 'r:r1');
-- 3. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`events_daily`/2026-07-02, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events_daily`/2026-07-02'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events_daily`/2026-07-02', 'r1', CURRENT_TIMESTAMP);
-- 4. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` USING DELTA AS
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS STRING)) AS STRING), ':', CAST(source_system AS STRING)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS STRING)) AS STRING), ':', CAST(source_id AS STRING)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS STRING)) AS STRING), ':', CAST(event_version AS STRING)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL;
-- 5. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`
WHERE `event_date` IS NULL
HAVING count(*) > 0;
-- 6. check: check expect(sum(amount_cents) >= 0) (error) on the staged batch, before publishing
SELECT ok FROM (SELECT (sum(amount_cents) >= 0) AS ok, count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n > 0 AND NOT coalesce(ok, FALSE);
-- 7. check: check min_rows(1) (warn) on the staged batch, before publishing
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n < 1;
-- 8. check: check not_null(event_key, event_date, user_id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE (t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AND (t.`event_key` IS NULL OR t.`event_date` IS NULL OR t.`user_id` IS NULL)
LIMIT 5;
-- 9. check: check row_count_matches(stg_events) (error) on the staged batch, before publishing
SELECT w.n AS written, s.n AS source FROM
(SELECT count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS w,
(SELECT count(*) AS n FROM `analytics`.`stg_events` AS src
WHERE src.`event_date` >= DATE '2026-07-02' AND src.`event_date` < DATE '2026-07-03') AS s
WHERE w.n <> s.n;
-- 10. check: check unique(event_key) (error) on the staged batch, before publishing
SELECT t.`event_key`, count(*) AS n FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'
GROUP BY t.`event_key`
HAVING count(*) > 1
LIMIT 5;
-- 11. publish: make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:r1:analytics.events_daily:2026-07-02;
-- 12. publish
SET spark.databricks.delta.write.txnVersion = 1;
-- 13. insert: replace the partition window 2026-07-02 in one Delta commit
INSERT INTO `analytics`.`events_daily`
REPLACE WHERE `event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03'
SELECT `event_key`, `event_date`, `user_id`, `amount_cents`, `source_system` FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`;
-- 14. cleanup: forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- 15. cleanup
RESET spark.databricks.delta.write.txnVersion;
-- 16. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'events_daily', '2026-07-02', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '9d9a0cc8566a42e9', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '906787884921a897c828d5e8', 'r:r1';
-- 17. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`events_daily__idemc_stage_20260702_0c53fdac`;
-- 18. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events_daily`/2026-07-02' AND run_id = 'r1';
