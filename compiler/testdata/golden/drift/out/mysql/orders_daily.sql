-- unit orders_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`orders_daily` AS
SELECT * FROM (
SELECT order_id, order_date, amount FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('orders_daily', '2026-07-02', 'analytics', 'orders_daily', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'b755f070a6dfee86', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0bc4caed885fb67f6affc21e', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, 'b755f070a6dfee86', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '0bc4caed885fb67f6affc21e', 'r:r1');
-- 4. begin
START TRANSACTION;
-- 5. lock: serialize writers of this unit until commit
--    lock `analytics`.`orders_daily`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.orders_daily')
SELECT GET_LOCK('idemc:analytics.orders_daily', 600);
-- 6. delete: replace the partition window 2026-07-02
DELETE t FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03';
-- 7. insert: write the partition
INSERT INTO `analytics`.`orders_daily` (`order_id`, `order_date`, `amount`)
SELECT `order_id`, `order_date`, `amount` FROM (
SELECT * FROM (
SELECT order_id, order_date, amount FROM `raw`.`orders`
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE (`order_date` >= DATE '2026-07-02' AND `order_date` < DATE '2026-07-03') OR `order_date` IS NULL
) AS idemc_batch;
-- 8. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM `analytics`.`orders_daily`
WHERE `order_date` IS NULL
HAVING count(*) > 0;
-- 9. check: check drift.zero_rows (error)
SELECT n AS row_count FROM (SELECT count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AS c
WHERE n = 0;
-- 10. check: check drift.row_count(window 7, ratio 0.25..4) (warn)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM `analytics`.`orders_daily` AS t
WHERE t.`order_date` >= DATE '2026-07-02' AND t.`order_date` < DATE '2026-07-03') AS c,
(SELECT avg(o.row_count) AS median, max(o.k) AS k FROM (
  SELECT l.row_count, ROW_NUMBER() OVER (ORDER BY l.row_count) AS i, count(*) OVER () AS k FROM (
    SELECT s.row_count FROM (
      SELECT a.row_count, ROW_NUMBER() OVER (PARTITION BY a.partition_key ORDER BY a.ended_at DESC) AS latest
      FROM `analytics`.`idemc_audit` AS a
      JOIN (
        SELECT DISTINCT p.partition_key FROM `analytics`.`idemc_audit` AS p
        WHERE p.job_name = 'orders_daily' AND p.status = 'succeeded' AND p.partition_key < '2026-07-02'
        ORDER BY p.partition_key DESC
        LIMIT 7
      ) AS w ON a.partition_key = w.partition_key
      WHERE a.job_name = 'orders_daily' AND a.status = 'succeeded'
    ) AS s
    WHERE s.latest = 1
  ) AS l
) AS o
WHERE 2 * o.i BETWEEN o.k AND o.k + 2) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
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
