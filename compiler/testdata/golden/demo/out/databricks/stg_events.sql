-- unit stg_events  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, '7971cc969513fee7', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '2130b6e5f0137e9ba63b40ea', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`stg_events`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`stg_events`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`stg_events`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`stg_events`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`stg_events`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`stg_events`', 'r1', CURRENT_TIMESTAMP);
-- 3. publish: replace the view (no transaction: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`stg_events` WITH SCHEMA EVOLUTION AS
-- The latest version of every event; late rows arrive with a later loaded_at.
SELECT source_system, source_id, event_version, event_date, user_id, amount, loaded_at
FROM (
  SELECT
    e.source_system, e.source_id, e.event_version, e.event_date, e.user_id, e.amount, e.loaded_at,
    row_number() OVER (PARTITION BY e.source_system, e.source_id ORDER BY e.event_version DESC, e.loaded_at DESC) AS version_rank
  FROM `raw`.`staging_events` AS e
) AS versions
WHERE version_rank = 1;
-- 4. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM `analytics`.`stg_events` AS t
WHERE (t.`source_system` IS NULL OR t.`source_id` IS NULL)
LIMIT 5;
-- 5. audit_finish: record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'stg_events', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '7971cc969513fee7', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '2130b6e5f0137e9ba63b40ea', 'r:r1';
-- 6. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`stg_events`' AND run_id = 'r1';
