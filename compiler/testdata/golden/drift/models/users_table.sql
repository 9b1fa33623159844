/* idemc
materialized = "table"
[drift]
row_count = { severity = "error" }
*/
SELECT user_id, name FROM {{ source("raw", "users") }}
