-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily` AS
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS CHAR)) AS CHAR), ':', CAST(source_system AS CHAR)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS CHAR)) AS CHAR), ':', CAST(source_id AS CHAR)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS CHAR)) AS CHAR), ':', CAST(event_version AS CHAR)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_daily', '2026-07-02', 'analytics', 'events_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '263e2e2b2b16a90f', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0e2fc7e1f66e42d6e8679023', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '263e2e2b2b16a90f', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0e2fc7e1f66e42d6e8679023', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`events_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.events_daily')
SELECT GET_LOCK('idemc:analytics.events_daily', 600);
-- 6. delete: replace the partition window 2026-07-02
DELETE t FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03';
-- 7. insert: write the partition
INSERT INTO `analytics`.`events_daily` (`event_key`, `event_date`, `user_id`, `amount_cents`, `source_system`)
SELECT `event_key`, `event_date`, `user_id`, `amount_cents`, `source_system` FROM (
SELECT * FROM (
SELECT
  md5(concat(CASE WHEN source_system IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_system AS CHAR)) AS CHAR), ':', CAST(source_system AS CHAR)) END, '|', CASE WHEN source_id IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(source_id AS CHAR)) AS CHAR), ':', CAST(source_id AS CHAR)) END, '|', CASE WHEN event_version IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(event_version AS CHAR)) AS CHAR), ':', CAST(event_version AS CHAR)) END)) AS event_key,
  event_date,
  user_id,
  CAST(round(amount * 100) AS DECIMAL(18, 0)) AS amount_cents,
  source_system
FROM `analytics`.`stg_events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_daily`
WHERE `event_date` IS NULL
HAVING count(*) > 0;
-- 9. check: check expect(sum(amount_cents) >= 0) (error)
SELECT ok FROM (SELECT (sum(amount_cents) >= 0) AS ok, count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n > 0 AND NOT coalesce(ok, FALSE);
-- 10. check: check min_rows(1) (warn)
SELECT n FROM (SELECT count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS c
WHERE n < 1;
-- 11. check: check not_null(event_key, event_date, user_id) (error)
SELECT * FROM `analytics`.`events_daily` AS t
WHERE (t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AND (t.`event_key` IS NULL OR t.`event_date` IS NULL OR t.`user_id` IS NULL)
LIMIT 5;
-- 12. check: check row_count_matches(stg_events) (error)
SELECT w.n AS written, s.n AS source FROM
(SELECT count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03') AS w,
(SELECT count(*) AS n FROM `analytics`.`stg_events` AS src
WHERE src.`event_date` >= DATE '2026-07-02' AND src.`event_date` < DATE '2026-07-03') AS s
WHERE w.n <> s.n;
-- 13. check: check unique(event_key) (error)
SELECT t.`event_key`, count(*) AS n FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'
GROUP BY t.`event_key`
HAVING count(*) > 1
LIMIT 5;
-- 14. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`events_daily` AS t WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_daily' AND partition_key = '2026-07-02';
-- 15. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'events_daily' AND run_id = 'r1';
-- 16. commit
COMMIT;
-- 17. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events_daily');
