-- a partition write (delete_insert) whose model has a new column (a new column on a copy)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '2026-07-02', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] serialize writers of this unit until commit
SELECT GET_LOCK('idemc:analytics.events', 600);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE TABLE `analytics`.`events__idemc_new` LIKE `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
INSERT INTO `analytics`.`events__idemc_new` SELECT * FROM `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INTEGER;
-- [begin] 
START TRANSACTION;
-- [delete] replace the partition window 2026-07-02
DELETE t FROM `analytics`.`events__idemc_new` AS t
WHERE t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03';
-- [insert] write the partition
INSERT INTO `analytics`.`events__idemc_new` (`id`, `d`, `amount`, `note`)
SELECT `id`, `d`, `amount`, `note` FROM (
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_batch
WHERE (`d` >= DATE '2026-07-02' AND `d` < DATE '2026-07-03') OR `d` IS NULL
) AS idemc_batch;
-- [validate] a NULL d would land in no partition
SELECT count(*) AS n FROM `analytics`.`events__idemc_new`
WHERE `d` IS NULL
HAVING count(*) > 0;
-- [check] check not_null(id) (error)
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03') AND (t.`id` IS NULL)
LIMIT 5;
-- [commit] 
COMMIT;
-- [publish] put the checked relation in the destination's place
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [begin] 
START TRANSACTION;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '2026-07-02';
-- [latest_end] the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '2026-07-02' AND dest_schema = 'analytics' AND dest_name = 'events__idemc_new' AND run_id = '20260703T060000.000Z-cafe0001';
-- [commit] 
COMMIT;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events');

-- a merge with a watermark whose model has a new column (a new column on a copy)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '', 'analytics', 'events', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] serialize writers of this unit until commit
SELECT GET_LOCK('idemc:analytics.events', 600);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE TABLE `analytics`.`events__idemc_new` LIKE `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
INSERT INTO `analytics`.`events__idemc_new` SELECT * FROM `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INTEGER;
-- [begin] 
START TRANSACTION;
-- [stage] the batch
CREATE TEMPORARY TABLE `events__idemc_new__idemc_stage_cafe0001` AS
SELECT id, d, amount, note FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `events__idemc_new__idemc_stage_cafe0001`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [merge] update matched keys (null-safe <=>)
UPDATE `analytics`.`events__idemc_new` AS t
JOIN `events__idemc_new__idemc_stage_cafe0001` AS s ON t.`id` <=> s.`id`
SET t.`d` = s.`d`, t.`amount` = s.`amount`, t.`note` = s.`note`;
-- [merge] insert the batch's new keys
INSERT INTO `analytics`.`events__idemc_new` (`id`, `d`, `amount`, `note`)
SELECT s.`id`, s.`d`, s.`amount`, s.`note` FROM `events__idemc_new__idemc_stage_cafe0001` AS s
WHERE NOT EXISTS (SELECT 1 FROM `analytics`.`events__idemc_new` AS t WHERE t.`id` <=> s.`id`);
-- [check] check not_null(id) (error)
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (EXISTS (SELECT 1 FROM `events__idemc_new__idemc_stage_cafe0001` AS s WHERE t.`id` <=> s.`id`)) AND (t.`id` IS NULL)
LIMIT 5;
-- [commit] 
COMMIT;
-- [publish] put the checked relation in the destination's place
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [begin] 
START TRANSACTION;
-- [state] forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'events' AND EXISTS (SELECT 1 FROM `events__idemc_new__idemc_stage_cafe0001` WHERE `d` IS NOT NULL);
-- [state] record the batch's maximum d
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'events', CAST(max(`d`) AS CHAR), '20260703T060000.000Z-cafe0001', NULL FROM `events__idemc_new__idemc_stage_cafe0001` HAVING max(`d`) IS NOT NULL;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [latest_end] the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'events__idemc_new' AND run_id = '20260703T060000.000Z-cafe0001';
-- [commit] 
COMMIT;
-- [cleanup] drop the batch
DROP TEMPORARY TABLE IF EXISTS `events__idemc_new__idemc_stage_cafe0001`;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events');

-- a view becomes a table: no change the runner composes on mysql

-- a table becomes a view (the materialization changed, swapped in)
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] a leftover view or table from a dead run
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] a leftover view or table from a dead run
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [latest_start] the unit's latest state: running (committed on its own)
INSERT INTO `analytics`.`idemc_latest` (job_name, partition_key, dest_schema, dest_name, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version)
VALUES ('events', '', 'analytics', 'events__idemc_new', '20260703T060000.000Z-cafe0001', 'running', NULL, NULL, NULL, 1, 'h', 'prod', NULL, NULL, NULL, NULL, NULL)
ON DUPLICATE KEY UPDATE run_id = VALUES(run_id), status = VALUES(status), row_count = VALUES(row_count), started_at = VALUES(started_at), ended_at = VALUES(ended_at), attempt = VALUES(attempt), code_hash = VALUES(code_hash), target = VALUES(target), as_of = VALUES(as_of), error = VALUES(error), checks = VALUES(checks), inputs = VALUES(inputs), data_version = VALUES(data_version);
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] serialize writers of this view until its checks are recorded
SELECT GET_LOCK('idemc:analytics.events__idemc_new', 600);
-- [stage] the view, aside: its checks read it before the swap
CREATE OR REPLACE VIEW `analytics`.`events__idemc_new` AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) over the whole view
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`id` IS NULL)
LIMIT 5;
-- [publish] put the checked relation in the destination's place
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [audit_finish] record success with the row count
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '20260703T060000.000Z-cafe0001' AND job_name = 'events' AND partition_key = '';
-- [latest_end] the unit's latest state, with its audit row
UPDATE `analytics`.`idemc_latest` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE job_name = 'events' AND partition_key = '' AND dest_schema = 'analytics' AND dest_name = 'events__idemc_new' AND run_id = '20260703T060000.000Z-cafe0001';
-- [cleanup] release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.events__idemc_new');
-- [cleanup] the view, left by a failed unit
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;

