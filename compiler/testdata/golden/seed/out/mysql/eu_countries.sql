-- unit eu_countries  partition -  (table)
-- 1. prepare: the table, empty, if it does not exist yet (so the swap below always has two sides)
CREATE TABLE IF NOT EXISTS `analytics`.`eu_countries` AS
SELECT * FROM (
SELECT code, name, population FROM `raw`.`countries` WHERE eu
) AS idemc_shape LIMIT 0;
-- 2. latest_start: the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('eu_countries', '', 'analytics', 'eu_countries', 'r1', 'running', NULL, <started_at>, NULL, <attempt>, 'f8a933e07511bcae', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5c5ba7e0fa0cf68b5545c1ca', 'r:r1')
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- 3. audit_start: record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'eu_countries', '', 'running', NULL, <started_at>, NULL, <attempt>, 'f8a933e07511bcae', 'g1', 'mysql', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '5c5ba7e0fa0cf68b5545c1ca', 'r:r1');
-- 4. lock: serialize writers of this table across build, check and publish
--    lock `analytics`.`eu_countries`, waiting at most 10m0s, released by SELECT RELEASE_LOCK('idemc:analytics.eu_countries')
SELECT GET_LOCK('idemc:analytics.eu_countries', 600);
-- 5. stage: a leftover build from a dead run
DROP TABLE IF EXISTS `analytics`.`eu_countries__idemc_new`;
-- 6. stage: a leftover previous table from a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`eu_countries__idemc_old`;
-- 7. stage: a previous view (the model was a view) from a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`eu_countries__idemc_old`;
-- 8. stage: build the new table aside
CREATE TABLE `analytics`.`eu_countries__idemc_new` AS
SELECT code, name, population FROM `raw`.`countries` WHERE eu;
-- 9. check: check unique(code) (error)
SELECT t.`code`, count(*) AS n FROM `analytics`.`eu_countries__idemc_new` AS t
GROUP BY t.`code`
HAVING count(*) > 1
LIMIT 5;
-- 10. publish: swap it in atomically
RENAME TABLE `analytics`.`eu_countries` TO `analytics`.`eu_countries__idemc_old`, `analytics`.`eu_countries__idemc_new` TO `analytics`.`eu_countries`;
-- 11. cleanup: drop the previous table
DROP TABLE IF EXISTS `analytics`.`eu_countries__idemc_old`;
-- 12. cleanup: or the previous view, when the model was a view
DROP VIEW IF EXISTS `analytics`.`eu_countries__idemc_old`;
-- 13. audit_finish: record success with the row count
-- count: SELECT count(*) FROM `analytics`.`eu_countries`
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'eu_countries' AND partition_key = '';
-- 14. latest_end: the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'eu_countries' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'eu_countries' AND run_id = 'r1';
-- 15. cleanup: release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.eu_countries');
