-- unit orders_daily  partition 2026-07-01  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily` AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-01' AND order_date < DATE '2026-07-02'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-01', 'analytics', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-01', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_daily')
SELECT GET_LOCK('idemc:analytics.orders_daily', 600);
-- 6. delete: replace the partition window 2026-07-01
DELETE t FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-01' AND t.`order_date` < DATE '2026-07-02';
-- 7. insert: write the partition
INSERT INTO `analytics`.`orders_daily` (`order_id`, `order_date`, `user_id`, `amount`)
SELECT `order_id`, `order_date`, `user_id`, `amount` FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-01' AND order_date < DATE '2026-07-02'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-01' AND `order_date` < DATE '2026-07-02') OR `order_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 9. check: check not_null(order_id, order_date) (error)
SELECT * FROM `analytics`.`orders_daily` AS t
WHERE (t.`order_date` >= DATE '2026-07-01' AND t.`order_date` < DATE '2026-07-02') AND (t.`order_id` IS NULL OR t.`order_date` IS NULL)
LIMIT 5;
-- 10. check: check unique(order_id) (error)
SELECT t.`order_id`, count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-01' AND t.`order_date` < DATE '2026-07-02'
GROUP BY t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`orders_daily` AS t WHERE t.`order_date` >= DATE '2026-07-01' AND t.`order_date` < DATE '2026-07-02'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-01';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_daily' AND partition_key = '2026-07-01' AND dest_schema = 'analytics' AND dest_name = 'orders_daily' AND run_id = 'r1';
-- 13. commit
COMMIT;
-- 14. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_daily');

-- unit orders_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily` AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-02', 'analytics', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_daily')
SELECT GET_LOCK('idemc:analytics.orders_daily', 600);
-- 6. delete: replace the partition window 2026-07-02
DELETE t FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03';
-- 7. insert: write the partition
INSERT INTO `analytics`.`orders_daily` (`order_id`, `order_date`, `user_id`, `amount`)
SELECT `order_id`, `order_date`, `user_id`, `amount` FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03') OR `order_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 9. check: check not_null(order_id, order_date) (error)
SELECT * FROM `analytics`.`orders_daily` AS t
WHERE (t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AND (t.`order_id` IS NULL OR t.`order_date` IS NULL)
LIMIT 5;
-- 10. check: check unique(order_id) (error)
SELECT t.`order_id`, count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03'
GROUP BY t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`orders_daily` AS t WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-02';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_daily' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'orders_daily' AND run_id = 'r1';
-- 13. commit
COMMIT;
-- 14. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_daily');

-- unit orders_daily  partition 2026-07-03  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily` AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-03' AND order_date < DATE '2026-07-04'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-03', 'analytics', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-03', 'running', NULL, <started_at>, NULL, <attempt>, 'f2bc7f69cc0b94b9', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'ad4bb4f0c131265e9140bd06', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_daily')
SELECT GET_LOCK('idemc:analytics.orders_daily', 600);
-- 6. delete: replace the partition window 2026-07-03
DELETE t FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-03' AND t.`order_date` < DATE '2026-07-04';
-- 7. insert: write the partition
INSERT INTO `analytics`.`orders_daily` (`order_id`, `order_date`, `user_id`, `amount`)
SELECT `order_id`, `order_date`, `user_id`, `amount` FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-03' AND order_date < DATE '2026-07-04'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-03' AND `order_date` < DATE '2026-07-04') OR `order_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 9. check: check not_null(order_id, order_date) (error)
SELECT * FROM `analytics`.`orders_daily` AS t
WHERE (t.`order_date` >= DATE '2026-07-03' AND t.`order_date` < DATE '2026-07-04') AND (t.`order_id` IS NULL OR t.`order_date` IS NULL)
LIMIT 5;
-- 10. check: check unique(order_id) (error)
SELECT t.`order_id`, count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-03' AND t.`order_date` < DATE '2026-07-04'
GROUP BY t.`order_id`
HAVING count(*) > 1
LIMIT 5;
-- 11. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM `analytics`.`orders_daily` AS t WHERE t.`order_date` >= DATE '2026-07-03' AND t.`order_date` < DATE '2026-07-04'
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-03';
-- 12. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'orders_daily' AND partition_key = '2026-07-03' AND dest_schema = 'analytics' AND dest_name = 'orders_daily' AND run_id = 'r1';
-- 13. commit
COMMIT;
-- 14. cleanup: release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.orders_daily');
