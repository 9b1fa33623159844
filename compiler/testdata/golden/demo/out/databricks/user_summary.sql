-- unit user_summary  partition -  (table)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_summary', '', 'running', NULL, <started_at>, NULL, <attempt>, '6f015012031a4569', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '3ce5459ef01d7dd9722bf5e9', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`user_summary`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_summary`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_summary`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_summary`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`user_summary`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`user_summary`', 'r1', CURRENT_TIMESTAMP);
-- 3. stage: materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`user_summary__idemc_stage_0c53fdac` USING DELTA AS
WITH `__idemc_eph_valid_events` AS (
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM `analytics`.`events_daily`
WHERE amount_cents > 0
)
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM `analytics`.`dim_users` AS u
LEFT JOIN `__idemc_eph_valid_events` AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id;
-- 4. check: check min_rows(1) (error) on the staged batch, before publishing
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`user_summary__idemc_stage_0c53fdac` AS t) AS c
WHERE n < 1;
-- 5. check: check relationships(user_id -> dim_users.user_id) (error) on the staged batch, before publishing
SELECT t.`user_id` FROM `analytics`.`user_summary__idemc_stage_0c53fdac` AS t
WHERE t.`user_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `analytics`.`dim_users` AS o WHERE o.`user_id` = t.`user_id`)
LIMIT 5;
-- 6. check: check unique(user_id) (error) on the staged batch, before publishing
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`user_summary__idemc_stage_0c53fdac` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5;
-- 7. publish: publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`user_summary` USING DELTA AS
SELECT * FROM `analytics`.`user_summary__idemc_stage_0c53fdac`;
-- 8. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`user_summary__idemc_stage_0c53fdac`
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'user_summary', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '6f015012031a4569', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '3ce5459ef01d7dd9722bf5e9', 'r:r1';
-- 9. cleanup: drop the staging table
DROP TABLE IF EXISTS `analytics`.`user_summary__idemc_stage_0c53fdac`;
-- 10. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`user_summary`' AND run_id = 'r1';
