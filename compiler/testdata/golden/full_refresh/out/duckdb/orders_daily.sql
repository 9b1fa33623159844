-- unit orders_daily  partition 2026-07-01  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."orders_daily" AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-01' AND order_date < DATE '2026-07-02'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-01', 'running', NULL, <started_at>, NULL, <attempt>, '288cd34f400728ac', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '8227b1265abe7bc67d7689be', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. delete: replace the partition window 2026-07-01
DELETE FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-01' AND t."order_date" < DATE '2026-07-02';
-- 5. insert: write the partition
INSERT INTO "main"."orders_daily" ("order_id", "order_date", "user_id", "amount")
SELECT "order_id", "order_date", "user_id", "amount" FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-01' AND order_date < DATE '2026-07-02'
) AS idemc_batch
WHERE ("order_date" >= DATE '2026-07-01' AND "order_date" < DATE '2026-07-02') OR "order_date" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "main"."orders_daily"
WHERE "order_date" IS NULL
HAVING count(*) > 0;
-- 7. check: check not_null(order_id, order_date) (error)
SELECT * FROM "main"."orders_daily" AS t
WHERE (t."order_date" >= DATE '2026-07-01' AND t."order_date" < DATE '2026-07-02') AND (t."order_id" IS NULL OR t."order_date" IS NULL)
LIMIT 5;
-- 8. check: check unique(order_id) (error)
SELECT t."order_id", count(*) AS n FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-01' AND t."order_date" < DATE '2026-07-02'
GROUP BY t."order_id"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."orders_daily" AS t WHERE t."order_date" >= DATE '2026-07-01' AND t."order_date" < DATE '2026-07-02'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-01';
-- 10. commit
COMMIT;

-- unit orders_daily  partition 2026-07-02  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."orders_daily" AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-02', 'running', NULL, <started_at>, NULL, <attempt>, '288cd34f400728ac', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '8227b1265abe7bc67d7689be', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. delete: replace the partition window 2026-07-02
DELETE FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03';
-- 5. insert: write the partition
INSERT INTO "main"."orders_daily" ("order_id", "order_date", "user_id", "amount")
SELECT "order_id", "order_date", "user_id", "amount" FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-02' AND order_date < DATE '2026-07-03'
) AS idemc_batch
WHERE ("order_date" >= DATE '2026-07-02' AND "order_date" < DATE '2026-07-03') OR "order_date" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "main"."orders_daily"
WHERE "order_date" IS NULL
HAVING count(*) > 0;
-- 7. check: check not_null(order_id, order_date) (error)
SELECT * FROM "main"."orders_daily" AS t
WHERE (t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03') AND (t."order_id" IS NULL OR t."order_date" IS NULL)
LIMIT 5;
-- 8. check: check unique(order_id) (error)
SELECT t."order_id", count(*) AS n FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03'
GROUP BY t."order_id"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."orders_daily" AS t WHERE t."order_date" >= DATE '2026-07-02' AND t."order_date" < DATE '2026-07-03'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-02';
-- 10. commit
COMMIT;

-- unit orders_daily  partition 2026-07-03  (incremental delete_insert)
-- 1. prepare: the destination, empty, if it does not exist yet
CREATE TABLE IF NOT EXISTS "main"."orders_daily" AS
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-03' AND order_date < DATE '2026-07-04'
) AS idemc_shape LIMIT 0;
-- 2. audit_start: record the unit as running (committed on its own)
INSERT INTO "main"."idemc_audit" (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES ('r1', 'orders_daily', '2026-07-03', 'running', NULL, <started_at>, NULL, <attempt>, '288cd34f400728ac', 'g1', 'duckdb', TIMESTAMP '2026-07-03 06:00:00', NULL, NULL, '8227b1265abe7bc67d7689be', 'r:r1');
-- 3. begin
BEGIN TRANSACTION;
-- 4. delete: replace the partition window 2026-07-03
DELETE FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-03' AND t."order_date" < DATE '2026-07-04';
-- 5. insert: write the partition
INSERT INTO "main"."orders_daily" ("order_id", "order_date", "user_id", "amount")
SELECT "order_id", "order_date", "user_id", "amount" FROM (
SELECT * FROM (
SELECT order_id, order_date, user_id, amount
FROM "raw"."orders"
WHERE order_date >= DATE '2026-07-03' AND order_date < DATE '2026-07-04'
) AS idemc_batch
WHERE ("order_date" >= DATE '2026-07-03' AND "order_date" < DATE '2026-07-04') OR "order_date" IS NULL
) AS idemc_batch;
-- 6. validate: a NULL order_date would land in no partition
SELECT count(*) AS n FROM "main"."orders_daily"
WHERE "order_date" IS NULL
HAVING count(*) > 0;
-- 7. check: check not_null(order_id, order_date) (error)
SELECT * FROM "main"."orders_daily" AS t
WHERE (t."order_date" >= DATE '2026-07-03' AND t."order_date" < DATE '2026-07-04') AND (t."order_id" IS NULL OR t."order_date" IS NULL)
LIMIT 5;
-- 8. check: check unique(order_id) (error)
SELECT t."order_id", count(*) AS n FROM "main"."orders_daily" AS t
WHERE t."order_date" >= DATE '2026-07-03' AND t."order_date" < DATE '2026-07-04'
GROUP BY t."order_id"
HAVING count(*) > 1
LIMIT 5;
-- 9. audit_finish: record success with the row count, in the write's transaction
-- count: SELECT count(*) FROM "main"."orders_daily" AS t WHERE t."order_date" >= DATE '2026-07-03' AND t."order_date" < DATE '2026-07-04'
UPDATE "main"."idemc_audit" SET status = 'succeeded', row_count = <rows>, ended_at = <ended_at>, error = NULL, checks = <checks>
WHERE run_id = 'r1' AND job_name = 'orders_daily' AND partition_key = '2026-07-03';
-- 10. commit
COMMIT;
