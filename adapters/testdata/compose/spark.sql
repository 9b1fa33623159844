-- a partition write (delete_insert) whose model has a new column (a new column on a copy)
-- [prepare] the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` USING DELTA AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events`/2026-07-02'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`/2026-07-02', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INTEGER;
-- [stage] materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new__idemc_stage_cafe0001_20260702_ebf41686` USING DELTA AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_batch
WHERE (`d` >= DATE '2026-07-02' AND `d` < DATE '2026-07-03') OR `d` IS NULL;
-- [validate] a NULL d would land in no partition
SELECT count(*) AS n FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_20260702_ebf41686`
WHERE `d` IS NULL
HAVING count(*) > 0;
-- [check] check not_null(id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_20260702_ebf41686` AS t
WHERE (t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03') AND (t.`id` IS NULL)
LIMIT 5;
-- [publish] make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:20260703T060000.000Z-cafe0001:analytics.events__idemc_new:2026-07-02;
-- [publish] 
SET spark.databricks.delta.write.txnVersion = 1;
-- [insert] replace the partition window 2026-07-02 in one Delta commit
INSERT INTO `analytics`.`events__idemc_new`
REPLACE WHERE `d` >= DATE '2026-07-02' AND `d` < DATE '2026-07-03'
SELECT `id`, `d`, `amount`, `note` FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_20260702_ebf41686`;
-- [cleanup] forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- [cleanup] 
RESET spark.databricks.delta.write.txnVersion;
-- [publish] put the checked relation in the destination's place
CREATE OR REPLACE TABLE `analytics`.`events` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events__idemc_new`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'succeeded', <rows>, NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_new__idemc_stage_cafe0001_20260702_ebf41686`;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`/2026-07-02' AND run_id = '20260703T060000.000Z-cafe0001';

-- a merge with a watermark whose model has a new column (a new column on a copy)
-- [prepare] the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` USING DELTA AS
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INTEGER;
-- [stage] materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` USING DELTA AS
SELECT id, d, amount, note FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [check] check not_null(id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` AS t
WHERE (t.`id` IS NULL)
LIMIT 5;
-- [publish] make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:20260703T060000.000Z-cafe0001:analytics.events__idemc_new;
-- [publish] 
SET spark.databricks.delta.write.txnVersion = 1;
-- [merge] update matched keys, insert new ones (null-safe <=>), in one Delta commit
MERGE INTO `analytics`.`events__idemc_new` AS t
USING `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` AS s
ON t.`id` <=> s.`id`
WHEN MATCHED THEN UPDATE SET `d` = s.`d`, `amount` = s.`amount`, `note` = s.`note`
WHEN NOT MATCHED THEN INSERT (`id`, `d`, `amount`, `note`) VALUES (s.`id`, s.`d`, s.`amount`, s.`note`);
-- [cleanup] forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- [cleanup] 
RESET spark.databricks.delta.write.txnVersion;
-- [publish] put the checked relation in the destination's place
CREATE OR REPLACE TABLE `analytics`.`events` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events__idemc_new`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [state] record the batch's maximum d (an empty batch keeps the old mark)
MERGE INTO `analytics`.`idemc_state` AS t
USING (SELECT 'events' AS job_name, CAST(max(`d`) AS STRING) AS high_water FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` HAVING max(`d`) IS NOT NULL) AS s
ON t.job_name = s.job_name
WHEN MATCHED THEN UPDATE SET high_water = s.high_water, run_id = '20260703T060000.000Z-cafe0001', updated_at = NULL
WHEN NOT MATCHED THEN INSERT (job_name, high_water, run_id, updated_at) VALUES (s.job_name, s.high_water, '20260703T060000.000Z-cafe0001', NULL);
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', <rows>, NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686`;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '20260703T060000.000Z-cafe0001';

-- a view becomes a table (the materialization changed, swapped in)
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [stage] materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` USING DELTA AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) on the staged batch, before publishing
SELECT * FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686` AS t
WHERE (t.`id` IS NULL)
LIMIT 5;
-- [publish] publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` USING DELTA AS
SELECT * FROM `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686`;
-- [publish] put the checked relation in the destination's place
ALTER VIEW `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`;
-- [publish] put the checked relation in the destination's place
ALTER TABLE `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`;
-- [schema] drop the previous relation
DROP VIEW IF EXISTS `analytics`.`events__idemc_old`;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', <rows>, NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_new__idemc_stage_cafe0001_ebf41686`;
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER VIEW `analytics`.`events__idemc_old` RENAME TO `analytics`.`events`;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '20260703T060000.000Z-cafe0001';

-- a table becomes a view (the materialization changed, swapped in)
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] a leftover view or table from a dead run
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] a leftover view or table from a dead run
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('20260703T060000.000Z-cafe0001', 'events', '', 'running', NULL, NULL, NULL, 1, 'h', NULL, 'prod', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [stage] the view, aside: its checks read it before the swap
CREATE OR REPLACE VIEW `analytics`.`events__idemc_new` WITH SCHEMA EVOLUTION AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) over the whole view
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`id` IS NULL)
LIMIT 5;
-- [publish] put the checked relation in the destination's place
ALTER TABLE `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`;
-- [publish] put the checked relation in the destination's place
ALTER VIEW `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`;
-- [schema] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', <rows>, NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '20260703T060000.000Z-cafe0001';
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER TABLE `analytics`.`events__idemc_old` RENAME TO `analytics`.`events`;
-- [cleanup] the view, left by a failed unit
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;

