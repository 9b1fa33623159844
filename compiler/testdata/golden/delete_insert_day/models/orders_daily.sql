/* idemc
materialized = "incremental"
strategy     = "delete_insert"
partition_by = "order_date"
granularity  = "day"
start        = "2026-07-01"

[checks]
not_null = ["order_id", "order_date"]
unique   = ["order_id"]
*/
SELECT order_id, order_date, user_id, amount
FROM {{ source("raw", "orders") }}
WHERE order_date >= {{ start }} AND order_date < {{ end }}
