-- materialized: incremental
-- strategy: append
-- allow_append: true
-- partition_by: event_date
-- uses_window: true

SELECT event_date, user_id, amount
FROM raw.staging_events
WHERE event_date >= DATE '2026-07-01' AND event_date < DATE '2026-07-02'
