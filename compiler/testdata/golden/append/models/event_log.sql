/* idemc
materialized = "incremental"
strategy     = "append"
allow_append = true
*/
SELECT event_id, event_at, kind FROM {{ source("raw", "events") }}
