-- unit users_table  partition -  (table)
-- 1. prepare: the table, empty, if it does not exist yet (so the swap below always has two sides)
CREATE TABLE IF NOT EXISTS `analytics`.`users_table` AS
SELECT * FROM (
SELECT user_id, name FROM `raw`.`users`
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('users_table', '', 'analytics', 'users_table', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, '8c65aaaa9d2651c9', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'd3a07891260d2e704d8f91f2', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'users_table', '', 'running', NULL, <started_at>, NULL, <attempt>, '8c65aaaa9d2651c9', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, 'd3a07891260d2e704d8f91f2', 'r:r1');
-- 4. lock: serialize writers of this table across build, check and publish
--    lock `analytics`.`users_table`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.users_table')
SELECT GET_LOCK('idemc:analytics.users_table', 600);
-- 5. stage: a leftover build from a dead run
DROP TABLE IF EXISTS `analytics`.`users_table__idemc_new`;
-- 6. stage: a leftover previous table from a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`users_table__idemc_old`;
-- 7. stage: a previous view (the model was a view) from a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`users_table__idemc_old`;
-- 8. stage: build the new table aside
CREATE TABLE `analytics`.`users_table__idemc_new` AS
SELECT user_id, name FROM `raw`.`users`;
-- 9. check: check drift.row_count(window 7, ratio 0.25..4) (error)
SELECT c.n AS row_count, h.median AS median, CASE WHEN h.median > 0 THEN c.n / h.median END AS ratio FROM
(SELECT count(*) AS n FROM `analytics`.`users_table__idemc_new` AS t) AS c,
(SELECT avg(o.row_count) AS median, max(o.k) AS k FROM (
  SELECT l.row_count, ROW_NUMBER() OVER (ORDER BY l.row_count) AS i, count(*) OVER () AS k FROM (
    SELECT a.row_count FROM `analytics`.`idemc_audit` AS a
    WHERE a.job_name = 'users_table' AND a.status = 'succeeded' AND a.partition_key = '' AND a.run_id <> 'r1'
    ORDER BY a.ended_at DESC
    LIMIT 7
  ) AS l
) AS o
WHERE 2 * o.i BETWEEN o.k AND o.k + 2) AS h
WHERE h.k >= 3 AND (c.n < 0.25 * h.median OR c.n > 4 * h.median);
-- 10. publish: swap it in atomically
RENAME TABLE `analytics`.`users_table` TO `analytics`.`users_table__idemc_old`, `analytics`.`users_table__idemc_new` TO `analytics`.`users_table`;
-- 11. cleanup: drop the previous table
DROP TABLE IF EXISTS `analytics`.`users_table__idemc_old`;
-- 12. cleanup: or the previous view, when the model was a view
DROP VIEW IF EXISTS `analytics`.`users_table__idemc_old`;
-- 13. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`users_table`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'users_table' AND partition_key = '';
-- 14. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'users_table' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'users_table' AND run_id = 'r1';
-- 15. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.users_table');
