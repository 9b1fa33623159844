/* idemc
materialized = "incremental"
strategy     = "insert_overwrite"
partition_by = "order_month"
granularity  = "month"
start        = "2026-01-01"
*/
SELECT order_id, CAST(order_date AS DATE) AS order_month, amount
FROM {{ source("raw", "orders") }}
WHERE order_date >= {{ start }} AND order_date < {{ end }}
