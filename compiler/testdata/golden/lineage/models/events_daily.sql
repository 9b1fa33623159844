/* idemc
materialized = "incremental"
partition_by = "event_date"
start        = "2026-07-01"
*/
SELECT event_id, event_date, kind
FROM {{ source("raw", "events") }}
WHERE event_date >= {{ start }} AND event_date < {{ end }}
