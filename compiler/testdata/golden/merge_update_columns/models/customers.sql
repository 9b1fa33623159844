/* idemc
materialized         = "incremental"
strategy             = "merge"
unique_key           = "user_id"
merge_update_columns = ["name", "country"]
*/
SELECT user_id, name, country, created_at
FROM {{ source("raw", "users") }}
