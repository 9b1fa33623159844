/* idemc
materialized = "incremental"
strategy     = "merge"
unique_key   = "user_id"
watermark    = { column = "updated_at", lag = "5m", overlap = "1h" }
merge_exclude_columns = ["first_loaded_by"]

[checks]
unique          = ["user_id"]
not_null        = ["user_id"]
accepted_values = { country = ["DE", "FR", "US", "JP"] }
*/
SELECT
  user_id,
  name,
  country,
  updated_at,
  {{ var("source_system") }} AS first_loaded_by
FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}
