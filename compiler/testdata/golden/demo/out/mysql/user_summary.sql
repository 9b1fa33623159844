-- unit user_summary  partition -  (table)
-- 1. prepare: the table, empty, if it does not exist yet (so the swap below always has two sides)
CREATE TABLE IF NOT EXISTS `analytics`.`user_summary` AS
SELECT * FROM (
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
ORDER BY u.user_id
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('user_summary', '', 'analytics', 'user_summary', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '0d6bbe159c8d86c3', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '89271483601ddba4f8bf6a34', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'user_summary', '', 'running', NULL, <started_at>, NULL, <attempt>, '0d6bbe159c8d86c3', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '89271483601ddba4f8bf6a34', 'r:r1');
-- 4. lock: serialize writers of this table across build, check and publish
--    lock `analytics`.`user_summary`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.user_summary')
SELECT GET_LOCK('idemc:analytics.user_summary', 600);
-- 5. stage: a leftover build from a dead run
DROP TABLE IF EXISTS `analytics`.`user_summary__idemc_new`;
-- 6. stage: a leftover previous table from a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`user_summary__idemc_old`;
-- 7. stage: a previous view (the model was a view) from a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`user_summary__idemc_old`;
-- 8. stage: build the new table aside
CREATE TABLE `analytics`.`user_summary__idemc_new` AS
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
-- 9. check: check min_rows(1) (error)
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`user_summary__idemc_new` AS t) AS c
WHERE n < 1;
-- 10. check: check relationships(user_id -> dim_users.user_id) (error)
SELECT t.`user_id` FROM `analytics`.`user_summary__idemc_new` AS t
WHERE t.`user_id` IS NOT NULL AND NOT EXISTS (SELECT 1 FROM `analytics`.`dim_users` AS o WHERE o.`user_id` = t.`user_id`)
LIMIT 5;
-- 11. check: check unique(user_id) (error)
SELECT t.`user_id`, count(*) AS n FROM `analytics`.`user_summary__idemc_new` AS t
GROUP BY t.`user_id`
HAVING count(*) > 1
LIMIT 5;
-- 12. publish: swap it in atomically
RENAME TABLE `analytics`.`user_summary` TO `analytics`.`user_summary__idemc_old`, `analytics`.`user_summary__idemc_new` TO `analytics`.`user_summary`;
-- 13. cleanup: drop the previous table
DROP TABLE IF EXISTS `analytics`.`user_summary__idemc_old`;
-- 14. cleanup: or the previous view, when the model was a view
DROP VIEW IF EXISTS `analytics`.`user_summary__idemc_old`;
-- 15. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`user_summary`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'user_summary' AND partition_key = '';
-- 16. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'user_summary' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'user_summary' AND run_id = 'r1';
-- 17. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.user_summary');
