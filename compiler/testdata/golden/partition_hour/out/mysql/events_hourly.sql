-- unit events_hourly  partition 2026-07-02T13  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events_hourly` AS
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events_hourly', '2026-07-02T13', 'analytics', 'events_hourly', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '51e82b7afd1606f1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '866b6476ed619bc8cf6ffdee', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'events_hourly', '2026-07-02T13', 'running', NULL, <started_at>, NULL, <attempt>, '51e82b7afd1606f1', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '866b6476ed619bc8cf6ffdee', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`events_hourly`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.events_hourly')
SELECT GET_LOCK('idemc:analytics.events_hourly', 600);
-- 6. delete: replace the partition window 2026-07-02T13
DELETE t FROM `analytics`.`events_hourly` AS t
WHERE t.`event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND t.`event_at` < TIMESTAMP '2026-07-02 14:00:00';
-- 7. insert: write the partition
INSERT INTO `analytics`.`events_hourly` (`event_id`, `event_at`, `kind`)
SELECT `event_id`, `event_at`, `kind` FROM (
SELECT * FROM (
SELECT event_id, event_at, kind
FROM `raw`.`events`
WHERE event_at >= TIMESTAMP '2026-07-02 13:00:00' AND event_at < TIMESTAMP '2026-07-02 14:00:00'
) AS idemc_batch
WHERE (`event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND `event_at` < TIMESTAMP '2026-07-02 14:00:00') OR `event_at` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL event_at would land in no partition
SELECT count(*) AS n FROM `analytics`.`events_hourly`
WHERE `event_at` IS NULL
HAVING count(*) > 0;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`events_hourly` AS t WHERE t.`event_at` >= TIMESTAMP '2026-07-02 13:00:00' AND t.`event_at` < TIMESTAMP '2026-07-02 14:00:00'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'events_hourly' AND partition_key = '2026-07-02T13';
-- 10. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events_hourly' AND partition_key = '2026-07-02T13' AND dest_schema = 'analytics' AND dest_name = 'events_hourly' AND run_id = 'r1';
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events_hourly');
