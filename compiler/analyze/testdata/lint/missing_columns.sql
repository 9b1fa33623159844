-- materialized: incremental
-- strategy: delete_insert
-- partition_by: event_date
-- unique_key: event_key, "Source_ID"
-- uses_window: true

SELECT
  e.source_id,
  e.user_id,
  CAST(e.event_ts AS DATE) AS event_day
FROM raw.staging_events AS e
WHERE e.event_ts >= TIMESTAMP '2026-07-01 00:00:00'
  AND e.event_ts < TIMESTAMP '2026-07-02 00:00:00'
