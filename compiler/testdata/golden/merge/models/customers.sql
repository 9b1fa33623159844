/* idemc
materialized = "incremental"
strategy     = "merge"
unique_key   = ["source_system", "user_id"]

[checks]
not_null = ["user_id"]
*/
SELECT source_system, user_id, name, country, created_at
FROM {{ source("raw", "users") }}
