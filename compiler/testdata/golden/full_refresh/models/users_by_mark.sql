/* idemc
materialized = "incremental"
unique_key   = "user_id"
watermark    = { column = "updated_at" }
*/
SELECT user_id, name, updated_at
FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}
