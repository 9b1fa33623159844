/* idemc
materialized = "incremental"
strategy     = "delete_insert"
partition_by = "event_date"
granularity  = "day"
start        = "2026-07-01"
unique_key   = ["event_key"]
lookback     = 1
tags         = ["daily"]

[checks]
unique            = ["event_key"]
not_null          = ["event_key", "event_date", "user_id"]
row_count_matches = { source = "stg_events", column = "event_date" }
min_rows          = { value = 1, severity = "warn" }
expect            = ["sum(amount_cents) >= 0"]
*/
SELECT
  {{ surrogate_key(["source_system", "source_id", "event_version"]) }} AS event_key,
  event_date,
  user_id,
  {{ cents("amount") }} AS amount_cents,
  source_system
FROM {{ ref("stg_events") }}
WHERE event_date >= {{ start }} AND event_date < {{ end }}
