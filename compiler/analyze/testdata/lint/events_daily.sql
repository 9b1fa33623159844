-- materialized: incremental
-- strategy: delete_insert
-- partition_by: event_date
-- unique_key: event_key
-- uses_window: true

WITH latest AS (
  SELECT
    *,
    row_number() OVER (
      PARTITION BY source_system, source_id
      ORDER BY event_version DESC, loaded_at DESC
    ) AS version_rank
  FROM raw.staging_events
  WHERE event_date >= DATE '2026-07-01' AND event_date < DATE '2026-07-02'
)
SELECT
  md5(coalesce(CAST(source_system AS VARCHAR), '_null_') || '|' ||
      coalesce(CAST(source_id AS VARCHAR), '_null_')) AS event_key,
  event_date,
  user_id,
  amount
FROM latest
WHERE version_rank = 1
