-- unit v_orders  partition -  (view)
-- 1. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'v_orders', '', 'running', NULL, <started_at>, NULL, <attempt>, 'ec6669e7032ca115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '61ea7c08810da3019d5a3f02', 'r:r1');
-- 2. lock: claim this unit in the lock table: another live run's claim is waited for
--    lock `analytics`.`v_orders`, waiting at most 10m0s, released by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`v_orders`' AND run_id = 'r1'; claimed for run r1, holder read by SELECT run_id FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`v_orders`' ORDER BY claimed_at, run_id LIMIT 1, a dead holder's taken over by DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`v_orders`' AND run_id = <holder>
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`v_orders`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`v_orders`', 'r1', CURRENT_TIMESTAMP);
-- 3. publish: replace the view (no transaction: a failing check leaves the new view, marked failed)
CREATE OR REPLACE VIEW `analytics`.`v_orders` WITH SCHEMA EVOLUTION AS
-- a view writes no rows: lineage_columns from [models] skips it
SELECT order_id, amount FROM `analytics`.`orders_daily`;
-- 4. audit_finish: record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT 'r1', 'v_orders', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, 'ec6669e7032ca115', 'g1', 'spark', TIMESTAMP '2026-07-03 06:00:00', NULL, <checks>, '61ea7c08810da3019d5a3f02', 'r:r1';
-- 5. cleanup: release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`v_orders`' AND run_id = 'r1';
