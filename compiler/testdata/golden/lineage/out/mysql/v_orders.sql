-- unit v_orders  partition -  (view)
-- 1. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('v_orders', '', 'analytics', 'v_orders', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '54b0b0c959536501', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c923c8de9279cd1beb2d4fcc', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'v_orders', '', 'running', NULL, <started_at>, NULL, <attempt>, '54b0b0c959536501', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'c923c8de9279cd1beb2d4fcc', 'r:r1');
-- 3. lock: serialize writers of this view until its checks are recorded
--    lock `analytics`.`v_orders`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.v_orders')
SELECT GET_LOCK('idemc:analytics.v_orders', 600);
-- 4. publish: replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`v_orders` AS
-- a view writes no rows: lineage_columns from [models] skips it
SELECT order_id, amount FROM `analytics`.`orders_daily`;
-- 5. audit_finish: record success with the row count
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'v_orders' AND partition_key = '';
-- 6. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'v_orders' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'v_orders' AND run_id = 'r1';
-- 7. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.v_orders');
