/* idemc
materialized = "view"

[checks]
not_null = ["user_id"]
*/
SELECT user_id, name, country FROM {{ source("raw", "users") }} WHERE active
