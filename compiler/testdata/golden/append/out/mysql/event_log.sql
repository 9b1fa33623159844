-- unit event_log  partition -  (incremental append)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`event_log` AS
SELECT * FROM (
SELECT event_id, event_at, kind FROM `raw`.`events`
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('event_log', '', 'analytics', 'event_log', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '1d0bc10c1a440cb8', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7dba5263f77cc34217a6a24a', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'event_log', '', 'running', NULL, <started_at>, NULL, <attempt>, '1d0bc10c1a440cb8', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '7dba5263f77cc34217a6a24a', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`event_log`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.event_log')
SELECT GET_LOCK('idemc:analytics.event_log', 600);
-- 6. stage: the batch
CREATE TEMPORARY TABLE `event_log__idemc_stage` AS
SELECT event_id, event_at, kind FROM `raw`.`events`;
-- 7. insert: append the batch (allow_append: a rerun adds the rows again)
INSERT INTO `analytics`.`event_log` (`event_id`, `event_at`, `kind`)
SELECT `event_id`, `event_at`, `kind` FROM `event_log__idemc_stage`;
-- 8. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `event_log__idemc_stage`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'event_log' AND partition_key = '';
-- 9. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'event_log' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'event_log' AND run_id = 'r1';
-- 10. cleanup: drop the batch
DROP TEMPORARY TABLE IF EXISTS `event_log__idemc_stage`;
-- 11. commit
COMMIT;
-- 12. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.event_log');
