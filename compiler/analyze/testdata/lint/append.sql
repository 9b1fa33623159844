-- materialized: incremental
-- strategy: append
-- partition_by: event_date

SELECT
  *
FROM raw.staging_events
