-- unit stg_events  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'stg_events', '', 'running', NULL, <started_at>, NULL, <attempt>, '7971cc969513fee7', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '2130b6e5f0137e9ba63b40ea', 'r:r1');
-- 2. publish: replace the view (no transaction: a failing check leaves the new view, marked failed)
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
-- 3. check: check not_null(source_system, source_id) (error) over the whole view
SELECT * FROM `analytics`.`stg_events` AS t
WHERE (t.`source_system` IS NULL OR t.`source_id` IS NULL)
LIMIT 5;
-- 4. audit_finish: record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'stg_events', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '7971cc969513fee7', 'g1', 'databricks', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '2130b6e5f0137e9ba63b40ea', 'r:r1';
