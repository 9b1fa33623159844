-- the state tables
CREATE SCHEMA IF NOT EXISTS `analytics`;
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_audit` (
  run_id STRING NOT NULL,
  job_name STRING NOT NULL,
  partition_key STRING NOT NULL,
  status STRING NOT NULL,
  row_count INT64,
  started_at TIMESTAMP,
  ended_at TIMESTAMP,
  attempt INT64,
  code_hash STRING,
  git_commit STRING,
  target STRING,
  as_of TIMESTAMP,
  error STRING,
  checks STRING,
  inputs STRING,
  data_version STRING
);
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_state` (
  job_name STRING NOT NULL,
  high_water STRING,
  run_id STRING,
  updated_at TIMESTAMP
);
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
  succeeded INT64,
  failed INT64,
  skipped INT64
);

-- sync_all_columns: retype id INTEGER → FLOAT and amount INTEGER → STRING in place (rows kept)
CREATE OR REPLACE TABLE `analytics`.`events`
PARTITION BY `d` AS
SELECT CAST(`id` AS FLOAT64) AS `id`, `d`, CAST(`amount` AS STRING) AS `amount`
FROM `analytics`.`events`;

-- append_new_columns / sync_all_columns: add a column (batch type STRING)
ALTER TABLE `analytics`.`events` ADD COLUMN `note` STRING;

-- sync_all_columns: drop a column
ALTER TABLE `analytics`.`events` DROP COLUMN `old`;

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS `analytics`.`events`;

-- column changes go to a copy of the destination, with its rows
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` CLONE `analytics`.`events`;

-- or an empty copy (a full rebuild)
CREATE OR REPLACE TABLE `analytics`.`events__idemc_new` LIKE `analytics`.`events`;

-- the checked copy replaces the destination
CREATE OR REPLACE TABLE `analytics`.`events` CLONE `analytics`.`events__idemc_new`;

-- a table becomes a view: the checked view takes its place
ALTER TABLE IF EXISTS `analytics`.`events` RENAME TO `events__idemc_old`;
CREATE VIEW `analytics`.`events` AS
SELECT id, d, amount FROM raw.events;

-- a view becomes a table (or an incremental table): the checked table takes its place
ALTER TABLE IF EXISTS `analytics`.`events__idemc_new` RENAME TO `events__idemc_old`;
DROP VIEW IF EXISTS `analytics`.`events`;
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;

-- a relation a dead run left at __idemc_old goes back: a table, a view
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;
ALTER TABLE IF EXISTS `analytics`.`events__idemc_old` RENAME TO `events`;

-- full refresh of an unpartitioned model whose column types changed (recreate in the write: false)
-- [prepare] the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`events` AS
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
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`events`', '<run_id>', CURRENT_TIMESTAMP);
-- [stage] the batch, in a staging table (expires in a day if a run dies)
CREATE OR REPLACE TABLE `analytics`.`events__idemc_stage_c2ded2c6`
OPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS
SELECT id, d, amount FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `analytics`.`events__idemc_stage_c2ded2c6`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [delete] full refresh: replace every row
TRUNCATE TABLE `analytics`.`events`;
-- [insert] write the batch
INSERT INTO `analytics`.`events` (`id`, `d`, `amount`)
SELECT `id`, `d`, `amount` FROM `analytics`.`events__idemc_stage_c2ded2c6`;
-- [audit_finish] record success and the row count, counted inside the script transaction
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '<run_id>', 'events', '', 'succeeded', (SELECT count(*) FROM `analytics`.`events__idemc_stage_c2ded2c6`), <started_at>, <ended_at>, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, <checks>, NULL, NULL;
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [cleanup] drop the staging table
DROP TABLE IF EXISTS `analytics`.`events__idemc_stage_c2ded2c6`;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`events`' AND run_id = '<run_id>';

-- table model whose column types changed (recreate in the write: false)
-- [prepare] the destination, empty, if it does not exist yet (DDL, outside the script)
CREATE TABLE IF NOT EXISTS `analytics`.`totals` AS
SELECT * FROM (
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] claim this unit in the lock table: another live run's claim is waited for
MERGE INTO `analytics`.`idemc_locks` AS t
USING (SELECT 1 AS one) AS s
ON t.lock_key = '`analytics`.`totals`'
WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at
WHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES ('`analytics`.`totals`', '<run_id>', CURRENT_TIMESTAMP);
-- [begin] the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job
BEGIN TRANSACTION;
-- [delete] rebuild: empty the table inside the transaction (keeps its options and grants)
TRUNCATE TABLE `analytics`.`totals`;
-- [insert] rebuild the rows
INSERT INTO `analytics`.`totals` (`user_id`, `n`)
SELECT `user_id`, `n` FROM (
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id
) AS idemc_batch;
-- [audit_finish] record success and the row count, counted inside the script transaction
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
SELECT '<run_id>', 'totals', '', 'succeeded', (SELECT count(*) FROM `analytics`.`totals`), <started_at>, <ended_at>, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, <checks>, NULL, NULL;
-- [commit] submit the buffered script; BigQuery commits it whole or not at all
COMMIT TRANSACTION;
-- [cleanup] release the unit's claim
DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = '`analytics`.`totals`' AND run_id = '<run_id>';

