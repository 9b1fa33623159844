/* idemc
materialized = "incremental"
strategy     = "insert_overwrite"
unique_key   = "order_id"
*/
SELECT order_id, amount FROM {{ source("raw", "orders") }}
