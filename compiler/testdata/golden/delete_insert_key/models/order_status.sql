/* idemc
materialized = "incremental"
strategy     = "delete_insert"
unique_key   = ["source_system", "order_id"]

[checks]
unique = ["source_system", "order_id"]
*/
SELECT source_system, order_id, status, amount
FROM {{ source("raw", "orders") }}
