/* idemc
materialized = "incremental"
partition_by = "order_date"
start = "2026-07-01"
[drift]
zero_rows = "error"
*/
SELECT order_id, order_date, amount FROM {{ source("raw", "orders") }}
WHERE order_date >= {{ start }} AND order_date < {{ end }}
