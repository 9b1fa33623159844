/* idemc
materialized         = "incremental"
unique_key           = "user_id"
merge_update_columns = ["name"]
*/
SELECT user_id, name, updated_at
FROM {{ source("raw", "users") }}
