CREATE SCHEMA IF NOT EXISTS "RAW";
CREATE OR REPLACE TABLE "RAW"."<aside>" ("ID" BIGINT, "AMOUNT" DOUBLE, "OK" BOOLEAN, "D" DATE, "TS" TIMESTAMP_NTZ, "ZIP" VARCHAR, "PRICE" NUMBER(18,2));
INSERT INTO "RAW"."<aside>" ("ID", "AMOUNT", "OK", "D", "TS", "ZIP", "PRICE") VALUES (?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?);
-- bound: [1 2.5 true 2026-07-01 00:00:00 +0000 UTC 2026-07-01 10:00:00.5 +0000 UTC 00123 12.30 2 <nil> false <nil> <nil> it's <nil>]
CREATE TABLE IF NOT EXISTS "RAW"."ZIPS" LIKE "RAW"."<aside>";
ALTER TABLE "RAW"."ZIPS" SWAP WITH "RAW"."<aside>";
DROP TABLE IF EXISTS "RAW"."<aside>";
