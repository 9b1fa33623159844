-- the state tables
CREATE SCHEMA IF NOT EXISTS `analytics`;
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_audit` (
  run_id STRING NOT NULL,
  job_name STRING NOT NULL,
  partition_key STRING NOT NULL,
  status STRING NOT NULL,
  row_count BIGINT,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  attempt BIGINT,
  code_hash STRING,
  git_commit STRING,
  target STRING,
  as_of TIMESTAMP,
  error STRING,
  checks STRING,
  inputs STRING,
  data_version STRING
) USING DELTA PARTITIONED BY (job_name);
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_state` (
  job_name STRING NOT NULL,
  high_water STRING,
  run_id STRING,
  updated_at TIMESTAMP
) USING DELTA;
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_runs` (
  run_id STRING NOT NULL,
  command STRING,
  options STRING,
  target STRING,
  as_of TIMESTAMP,
  git_commit STRING,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  outcome STRING,
  retry_of STRING,
  succeeded BIGINT,
  failed BIGINT,
  skipped BIGINT
) USING DELTA;

-- sync_all_columns: retype id INTEGER → LONG and amount LONG → STRING in place (rows kept)
CREATE OR REPLACE TABLE `analytics`.`events` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT CAST(`id` AS LONG) AS `id`, `d`, CAST(`amount` AS STRING) AS `amount`
FROM `analytics`.`events`;

-- append_new_columns / sync_all_columns: add a column (batch type STRING)
ALTER TABLE `analytics`.`events` ADD COLUMN `note` STRING;

-- sync_all_columns: drop a column
ALTER TABLE `analytics`.`events` DROP COLUMN `old`;

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS `analytics`.`events`;

-- column changes go to a copy of the destination, with its rows
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events`;

-- or an empty copy (a full rebuild)
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events` LIMIT 0;

-- the checked copy replaces the destination
CREATE OR REPLACE TABLE `analytics`.`events` USING DELTA TBLPROPERTIES ('delta.columnMapping.mode' = 'name', 'delta.minReaderVersion' = '2', 'delta.minWriterVersion' = '5') AS
SELECT * FROM `analytics`.`events__idemc_new`;

-- a table becomes a view: the checked view takes its place
ALTER TABLE `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`;
ALTER VIEW `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`;

-- a view becomes a table (or an incremental table): the checked table takes its place
ALTER VIEW `analytics`.`events` RENAME TO `analytics`.`events__idemc_old`;
ALTER TABLE `analytics`.`events__idemc_new` RENAME TO `analytics`.`events`;

-- a relation a dead run left at __idemc_old goes back: a table, a view
ALTER TABLE `analytics`.`events__idemc_old` RENAME TO `analytics`.`events`;
ALTER VIEW `analytics`.`events__idemc_old` RENAME TO `analytics`.`events`;

-- full refresh of an unpartitioned model whose column types changed (recreate in the write: true)
-- [prepare] the destination, an empty Delta table, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` USING DELTA AS
SELECT * FROM (
SELECT id, d, amount FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'events', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`events`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '<run_id>', CURRENT_TIMESTAMP);
-- [stage] materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`events__idemc_stage_c2ded2c6` USING DELTA AS
SELECT id, d, amount FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `analytics`.`events__idemc_stage_c2ded2c6`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [publish] make the publish idempotent: Delta skips a commit it has already made for this unit and attempt
SET spark.databricks.delta.write.txnAppId = idemc:<run_id>:analytics.events;
-- [publish] 
SET spark.databricks.delta.write.txnVersion = 1;
-- [insert] full refresh, column types changed: replace the table's definition and rows in one Delta commit
CREATE OR REPLACE TABLE `analytics`.`events` USING DELTA AS
SELECT `id`, `d`, `amount` FROM `analytics`.`events__idemc_stage_c2ded2c6`;
-- [cleanup] forget the idempotent-write id
RESET spark.databricks.delta.write.txnAppId;
-- [cleanup] 
RESET spark.databricks.delta.write.txnVersion;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '<run_id>', 'events', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_stage_c2ded2c6`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '<run_id>';

-- table model whose column types changed (recreate in the write: false)
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`totals`'
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`totals`', '<run_id>', CURRENT_TIMESTAMP);
-- [stage] materialize the batch in a staging Delta table: what is checked is what is published
CREATE OR REPLACE TABLE `analytics`.`totals__idemc_stage_c2ded2c6` USING DELTA AS
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id;
-- [publish] publish atomically: one Delta commit replaces the table's rows and schema
CREATE OR REPLACE TABLE `analytics`.`totals` USING DELTA AS
SELECT * FROM `analytics`.`totals__idemc_stage_c2ded2c6`;
-- [audit_finish] record success with the row count
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '<run_id>', 'totals', '', 'succeeded', <rows>, <started_at>, <ended_at>, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, <checks>, NULL, NULL;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`totals__idemc_stage_c2ded2c6`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`totals`' AND run_id = '<run_id>';

