-- materialized: incremental
-- strategy: append
-- partition_by: event_date

SELECT
  id,
  created_at::date AS event_date,
  now() AS loaded_at
FROM raw.orders
LIMIT 10
