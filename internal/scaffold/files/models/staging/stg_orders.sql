/* idemc
description = "every raw order, with its currency"
materialized = "view"

[checks]
not_null = ["order_id"]
*/
SELECT
  order_id,
  customer_id,
  order_date,
  amount,
  {{ var("currency") }} AS currency
FROM {{ source("raw", "raw_orders") }}
