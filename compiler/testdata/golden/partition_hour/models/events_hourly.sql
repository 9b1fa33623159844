/* idemc
materialized = "incremental"
partition_by = "event_at"
granularity  = "hour"
start        = "2026-07-01T00:00:00"
*/
SELECT event_id, event_at, kind
FROM {{ source("raw", "events") }}
WHERE event_at >= {{ start }} AND event_at < {{ end }}
