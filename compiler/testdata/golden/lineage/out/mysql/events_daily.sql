-- unit events_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_daily` AS
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS CHAR(255)) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS DATETIME(6)) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_daily', '2026-07-02', 'analytics', 'events_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'ea4aceefe15b1f1e', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '69ded6cf4d4bf548b0830392', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'ea4aceefe15b1f1e', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '69ded6cf4d4bf548b0830392', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`events_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.events_daily')
SELECT GET_LOCK('idemc:analytics.events_daily', 600);
-- 6. delete: replace the partition window 2026-07-02
DELETE t FROM `analytics`.`events_daily` AS t
WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03';
-- 7. insert: write the partition
INSERT INTO `analytics`.`events_daily` (`event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of`)
SELECT `event_id`, `event_date`, `kind`, `_idemc_run_id`, `_idemc_as_of` FROM (
SELECT * FROM (
SELECT idemc_lineage.*, CAST('r1' AS CHAR(255)) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS DATETIME(6)) AS `_idemc_as_of` FROM (
SELECT event_id, event_date, kind
FROM `raw`.`events`
WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'
) AS idemc_lineage
) AS idemc_batch
WHERE (`event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03') OR `event_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL event_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_daily`
WHERE `event_date` IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`events_daily` AS t WHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_daily' AND partition_key = '2026-07-02';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'events_daily' AND run_id = 'r1';
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events_daily');
