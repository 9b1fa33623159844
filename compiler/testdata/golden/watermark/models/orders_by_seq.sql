/* idemc
materialized = "incremental"
unique_key   = "order_id"
watermark    = { column = "order_seq", kind = "sequence" }
*/
SELECT order_id, order_seq, amount
FROM {{ source("raw", "orders") }}
WHERE order_seq > {{ watermark_start }} AND order_seq <= {{ watermark_end }}
