-- a partition write (delete_insert) whose model has a new column (a new column on a copy)
-- [prepare] the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`events`
PARTITION BY `d` AS
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
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`/2026-07-02', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` CLONE `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INT64;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [delete] replace the partition window 2026-07-02
DELETE FROM `analytics`.`events__idemc_new` AS t
WHERE t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03';
-- [insert] write the partition
INSERT INTO `analytics`.`events__idemc_new` (`id`, `d`, `amount`, `note`)
SELECT `id`, `d`, `amount`, `note` FROM (
SELECT * FROM (
SELECT id, d, amount, note FROM raw.events
) AS idemc_batch
WHERE (`d` >= DATE '2026-07-02' AND `d` < DATE '2026-07-03') OR `d` IS NULL
) AS idemc_batch;
-- [validate] check not_null(d) (error) as an ASSERT inside the script: a failure rolls it back
ASSERT NOT EXISTS (
SELECT count(*) AS n FROM `analytics`.`events__idemc_new`
WHERE `d` IS NULL
HAVING count(*) > 0
) AS 'idemc check not_null(d)';
-- [check] check not_null(id) (error) as an ASSERT inside the script: a failure rolls it back
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03') AND (t.`id` IS NULL)
LIMIT 5
) AS 'idemc check not_null(id)';
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [publish] put the checked relation in the destination's place
CREATE OR REPLACE TABLE `analytics`.`events` CLONE `analytics`.`events__idemc_new`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [audit_finish] record success and the row count, counted inside the script transaction
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '2026-07-02', 'succeeded', (SELECT count(*) FROM `analytics`.`events` AS t WHERE t.`d` >= DATE '2026-07-02' AND t.`d` < DATE '2026-07-03'), NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [cleanup] the copy, left by a failed unit or replaced by the swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`/2026-07-02' AND run_id = '20260703T060000.000Z-cafe0001';

-- a merge with a watermark whose model has a new column (a new column on a copy)
-- [prepare] the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`events` AS
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
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` CLONE `analytics`.`events`;
-- [schema] the new relation, aside: the write and its checks go to it
ALTER TABLE `analytics`.`events__idemc_new` ADD COLUMN `note` INT64;
-- [stage] the batch, in a staging table (expires in a day if a run dies)
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new__idemc_stage_ebf41686`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT id, d, amount, note FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `analytics`.`events__idemc_new__idemc_stage_ebf41686`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [merge] update matched keys, insert new ones (null-safe)
MERGE INTO `analytics`.`events__idemc_new` AS t
USING `analytics`.`events__idemc_new__idemc_stage_ebf41686` AS s
ON (t.`id` = s.`id` OR (t.`id` IS NULL AND s.`id` IS NULL))
WHEN MATCHED THEN UPDATE SET `d` = s.`d`, `amount` = s.`amount`, `note` = s.`note`
WHEN NOT MATCHED THEN INSERT (`id`, `d`, `amount`, `note`) VALUES (s.`id`, s.`d`, s.`amount`, s.`note`);
-- [check] check not_null(id) (error) as an ASSERT inside the script: a failure rolls it back
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (EXISTS (SELECT 1 FROM `analytics`.`events__idemc_new__idemc_stage_ebf41686` AS s WHERE (t.`id` = s.`id` OR (t.`id` IS NULL AND s.`id` IS NULL)))) AND (t.`id` IS NULL)
LIMIT 5
) AS 'idemc check not_null(id)';
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [publish] put the checked relation in the destination's place
CREATE OR REPLACE TABLE `analytics`.`events` CLONE `analytics`.`events__idemc_new`;
-- [cleanup] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [state] forget the old high-water mark if the batch has rows
DELETE FROM `analytics`.`idemc_state` WHERE job_name = 'events' AND EXISTS (SELECT 1 FROM `analytics`.`events__idemc_new__idemc_stage_ebf41686` WHERE `d` IS NOT NULL);
-- [state] record the batch's maximum d
INSERT INTO `analytics`.`idemc_state` (job_name, high_water, run_id, updated_at)
SELECT 'events', CAST(max(`d`) AS STRING), '20260703T060000.000Z-cafe0001', NULL FROM `analytics`.`events__idemc_new__idemc_stage_ebf41686` HAVING max(`d`) IS NOT NULL;
-- [audit_finish] record success and the row count, counted inside the script transaction
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', (SELECT count(*) FROM `analytics`.`events__idemc_new__idemc_stage_ebf41686`), NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_new__idemc_stage_ebf41686`;
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
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [schema] a previous relation left by a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`events__idemc_old`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] the new relation, aside: the write and its checks go to it
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
-- [schema] the new relation, aside: the write and its checks go to it
CREATE TABLE IF NOT EXISTS `analytics`.`events__idemc_new` AS
SELECT * FROM (
SELECT id, d FROM raw.events
) AS idemc_shape LIMIT 0;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [delete] rebuild: empty the table inside the transaction (keeps its options and grants)
TRUNCATE TABLE `analytics`.`events__idemc_new`;
-- [insert] rebuild the rows
INSERT INTO `analytics`.`events__idemc_new` (`id`, `d`)
SELECT `id`, `d` FROM (
SELECT id, d FROM raw.events
) AS idemc_batch;
-- [check] check not_null(id) (error) as an ASSERT inside the script: a failure rolls it back
ASSERT NOT EXISTS (
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`id` IS NULL)
LIMIT 5
) AS 'idemc check not_null(id)';
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [publish] put the checked relation in the destination's place
ALTER TABLE IF EXISTS `analytics`.`events__idemc_new` RENAME TO `events__idemc_old`;
-- [publish] put the checked relation in the destination's place
DROP VIEW IF EXISTS `analytics`.`events`;
-- [publish] put the checked relation in the destination's place
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;
-- [schema] drop the previous relation
DROP VIEW IF EXISTS `analytics`.`events__idemc_old`;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [audit_finish] record success and the row count, counted inside the script transaction
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', (SELECT count(*) FROM `analytics`.`events`), NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;
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
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '20260703T060000.000Z-cafe0001', CURRENT_TIMESTAMP);
-- [stage] the view, aside: its checks read it before the swap
CREATE OR REPLACE VIEW `analytics`.`events__idemc_new` AS
SELECT id, d FROM raw.events;
-- [check] check not_null(id) (error) over the whole view
SELECT * FROM `analytics`.`events__idemc_new` AS t
WHERE (t.`id` IS NULL)
LIMIT 5;
-- [publish] put the checked relation in the destination's place
ALTER TABLE IF EXISTS `analytics`.`events` RENAME TO `events__idemc_old`;
-- [publish] put the checked relation in the destination's place
CREATE VIEW `analytics`.`events` AS
SELECT id, d FROM raw.events;
-- [schema] drop the previous relation
DROP TABLE IF EXISTS `analytics`.`events__idemc_old`;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '20260703T060000.000Z-cafe0001', 'events', '', 'succeeded', <rows>, NULL, <ended_at>, 1, 'h', NULL, 'prod', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '20260703T060000.000Z-cafe0001';
-- [cleanup] a unit that failed between the renames: put the previous relation back
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;
-- [cleanup] the view, left by a failed unit
DROP VIEW IF EXISTS `analytics`.`events__idemc_new`;

