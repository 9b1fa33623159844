-- materialized: incremental
-- strategy: delete_insert
-- unique_key: id
-- partition_by: day
-- uses_window: true

SELECT id, day, 'a' AS src FROM raw.a WHERE day = DATE '2026-07-01'
UNION ALL
SELECT id, day, 'b' FROM raw.b WHERE day = DATE '2026-07-01'
UNION ALL
SELECT * FROM raw.c
LIMIT 1000
