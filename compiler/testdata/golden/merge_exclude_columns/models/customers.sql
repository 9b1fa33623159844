/* idemc
materialized          = "incremental"
strategy              = "merge"
unique_key            = "user_id"
merge_exclude_columns = ["created_at"]
*/
SELECT user_id, name, country, created_at
FROM {{ source("raw", "users") }}
