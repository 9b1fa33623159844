CREATE SCHEMA IF NOT EXISTS "RAW";
CREATE OR REPLACE TABLE "RAW"."<aside>" ("ID" BIGINT, "AMOUNT" DOUBLE, "OK" BOOLEAN, "D" DATE, "TS" TIMESTAMP_NTZ, "ZIP" VARCHAR);
INSERT INTO "RAW"."<aside>" ("ID", "AMOUNT", "OK", "D", "TS", "ZIP") VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?);
-- bound: [1 2.5 true 2026-07-01 00:00:00 +0000 UTC 2026-07-01 10:00:00.5 +0000 UTC 00123 2 <nil> false <nil> <nil> it's]
CREATE TABLE IF NOT EXISTS "RAW"."ZIPS" LIKE "RAW"."<aside>";
ALTER TABLE "RAW"."ZIPS" SWAP WITH "RAW"."<aside>";
DROP TABLE IF EXISTS "RAW"."<aside>";
