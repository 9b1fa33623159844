/* idemc
materialized = "incremental"
strategy     = "append"
allow_append = true
*/
SELECT event_id, event_date, kind FROM {{ source("raw", "events") }}
