/* idemc
materialized = "table"

[checks]
unique   = ["user_id"]
min_rows = 1
*/
SELECT user_id, count(*) AS orders, sum(amount) AS amount
FROM {{ source("raw", "orders") }}
GROUP BY user_id
