-- unit stg_events  partition -  (view)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('stg_events', '', 'analytics', 'stg_events', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'c41a81c5d00f1ef1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'b4e7a99f821fabd2b48b75e3', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, 'c41a81c5d00f1ef1', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'b4e7a99f821fabd2b48b75e3', 'r:r1');
-- 3. lock: serialize writers of this view until its checks are recorded
--    lock `analytics`.`stg_events`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.stg_events')
SELECT GET_LOCK('idemc:analytics.stg_events', 600);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`stg_events` AS
-- The latest version of every event; late rows arrive with a later loaded_at.
SELECT source_system, source_id, event_version, event_date, user_id, amount, loaded_at
FROM (
  SELECT
    e.source_system, e.source_id, e.event_version, e.event_date, e.user_id, e.amount, e.loaded_at,
    row_number() OVER (PARTITION BY e.source_system, e.source_id ORDER BY e.event_version DESC, e.loaded_at DESC) AS version_rank
  FROM `raw`.`staging_events` AS e
) AS versions
WHERE version_rank = 1;
-- 5. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM `analytics`.`stg_events` AS t
WHERE (t.`source_system` IS NULL OR t.`source_id` IS NULL)
LIMIT 5;
-- 6. audit_finish: record success with the row count
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'stg_events' AND partition_key = '';
-- 7. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'stg_events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'stg_events' AND run_id = 'r1';
-- 8. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.stg_events');
