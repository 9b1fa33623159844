-- Failing rows: events dated before the project's first partition.
SELECT event_key, event_date
FROM {{ ref("events_daily") }}
WHERE event_date < DATE '2026-07-01'
