-- the state tables
CREATE SCHEMA IF NOT EXISTS `analytics`;
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_audit` (
  run_id VARCHAR(255) NOT NULL,
  job_name VARCHAR(255) NOT NULL,
  partition_key VARCHAR(255) NOT NULL,
  status VARCHAR(255) NOT NULL,
  row_count BIGINT,
  started_at DATETIME(6),
  ended_at DATETIME(6),
  attempt BIGINT,
  code_hash TEXT,
  git_commit TEXT,
  target TEXT,
  as_of DATETIME(6),
  error TEXT,
  checks TEXT,
  inputs TEXT,
  data_version TEXT,
  KEY idemc_audit_unit (job_name, partition_key, run_id)
);
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_state` (
  job_name VARCHAR(255) NOT NULL,
  high_water TEXT,
  run_id TEXT,
  updated_at DATETIME(6),
  KEY idemc_state_job (job_name)
);
CREATE TABLE IF NOT EXISTS `analytics`.`idemc_runs` (
  run_id VARCHAR(255) NOT NULL,
  command TEXT,
  options TEXT,
  target TEXT,
  as_of DATETIME(6),
  git_commit TEXT,
  started_at DATETIME(6),
  ended_at DATETIME(6),
  outcome TEXT,
  retry_of TEXT,
  succeeded BIGINT,
  failed BIGINT,
  skipped BIGINT
);

-- sync_all_columns: retype id INT → BIGINT and amount BIGINT → VARCHAR in place (rows kept)
ALTER TABLE `analytics`.`events`
  MODIFY COLUMN `id` BIGINT,
  MODIFY COLUMN `amount` TEXT;

-- append_new_columns / sync_all_columns: add a column (batch type VARCHAR)
ALTER TABLE `analytics`.`events` ADD COLUMN `note` TEXT;

-- sync_all_columns: drop a column
ALTER TABLE `analytics`.`events` DROP COLUMN `old`;

-- full refresh whose types cannot change in place: drop, then the prepare steps again
DROP TABLE IF EXISTS `analytics`.`events`;

-- column changes go to a copy of the destination, with its rows
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
CREATE TABLE `analytics`.`events__idemc_new` LIKE `analytics`.`events`;
INSERT INTO `analytics`.`events__idemc_new` SELECT * FROM `analytics`.`events`;

-- or an empty copy (a full rebuild)
DROP TABLE IF EXISTS `analytics`.`events__idemc_new`;
CREATE TABLE `analytics`.`events__idemc_new` LIKE `analytics`.`events`;

-- the checked copy replaces the destination
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;

-- a table becomes a view: the checked view takes its place
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;

-- a view becomes a table (or an incremental table): the checked table takes its place
RENAME TABLE `analytics`.`events` TO `analytics`.`events__idemc_old`, `analytics`.`events__idemc_new` TO `analytics`.`events`;

-- a relation a dead run left at __idemc_old goes back: a table, a view
RENAME TABLE `analytics`.`events__idemc_old` TO `analytics`.`events`;
RENAME TABLE `analytics`.`events__idemc_old` TO `analytics`.`events`;

-- full refresh of an unpartitioned model whose column types changed (recreate in the write: false)
-- [prepare] the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS `analytics`.`events` AS
SELECT * FROM (
SELECT id, d, amount FROM raw.events
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'events', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [begin] 
START TRANSACTION;
-- [lock] serialize writers of this unit until commit
SELECT GET_LOCK('idemc:analytics.events', 600);
-- [stage] the batch
CREATE TEMPORARY TABLE `events__idemc_stage` AS
SELECT id, d, amount FROM raw.events;
-- [validate] refuse a batch that repeats a key before writing anything
SELECT `id`, count(*) AS n FROM `events__idemc_stage`
GROUP BY `id`
HAVING count(*) > 1
LIMIT 5;
-- [delete] full refresh: replace every row
DELETE FROM `analytics`.`events`;
-- [insert] write the batch
INSERT INTO `analytics`.`events` (`id`, `d`, `amount`)
SELECT `id`, `d`, `amount` FROM `events__idemc_stage`;
-- [audit_finish] record success with the row count, in the write's transaction
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'events' AND partition_key = '';
-- [cleanup] drop the batch
DROP TEMPORARY TABLE IF EXISTS `events__idemc_stage`;
-- [commit] 
COMMIT;
-- [cleanup] release the unit's lock
SELECT RELEASE_LOCK('idemc:analytics.events');

-- table model whose column types changed (recreate in the write: false)
-- [prepare] the table, empty, if it does not exist yet (so the swap below always has two sides)
CREATE TABLE IF NOT EXISTS `analytics`.`totals` AS
SELECT * FROM (
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id
) AS idemc_shape LIMIT 0;
-- [audit_start] record the unit as running (committed on its own)
INSERT INTO `analytics`.`idemc_audit` (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('<run_id>', 'totals', '', 'running', NULL, <started_at>, NULL, <attempt>, '<code_hash>', NULL, '<target>', NULL, NULL, NULL, NULL, NULL);
-- [lock] serialize writers of this table across build, check and publish
SELECT GET_LOCK('idemc:analytics.totals', 600);
-- [stage] a leftover build from a dead run
DROP TABLE IF EXISTS `analytics`.`totals__idemc_new`;
-- [stage] a leftover previous table from a run that died after its swap
DROP TABLE IF EXISTS `analytics`.`totals__idemc_old`;
-- [stage] a previous view (the model was a view) from a run that died after its swap
DROP VIEW IF EXISTS `analytics`.`totals__idemc_old`;
-- [stage] build the new table aside
CREATE TABLE `analytics`.`totals__idemc_new` AS
SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id;
-- [publish] swap it in atomically
RENAME TABLE `analytics`.`totals` TO `analytics`.`totals__idemc_old`, `analytics`.`totals__idemc_new` TO `analytics`.`totals`;
-- [cleanup] drop the previous table
DROP TABLE IF EXISTS `analytics`.`totals__idemc_old`;
-- [cleanup] or the previous view, when the model was a view
DROP VIEW IF EXISTS `analytics`.`totals__idemc_old`;
-- [audit_finish] record success with the row count
UPDATE `analytics`.`idemc_audit` SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = '<run_id>' AND job_name = 'totals' AND partition_key = '';
-- [cleanup] release the destination's lock
SELECT RELEASE_LOCK('idemc:analytics.totals');

