/* idemc
materialized = "incremental"
strategy     = "insert_overwrite"
partition_by = "order_date"
start        = "2026-07-01"

[checks]
not_null = ["order_id"]
unique   = ["order_id"]
*/
SELECT order_id, order_date, user_id, amount
FROM {{ source("raw", "orders") }}
WHERE order_date >= {{ start }} AND order_date < {{ end }}
