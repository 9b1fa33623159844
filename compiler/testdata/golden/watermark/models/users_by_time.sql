/* idemc
materialized = "incremental"
strategy     = "merge"
unique_key   = "user_id"
watermark    = { column = "updated_at", lag = "5m", overlap = "1h" }
*/
SELECT user_id, name, updated_at
FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}
