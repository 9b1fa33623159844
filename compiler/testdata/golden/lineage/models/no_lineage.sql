/* idemc
materialized    = "table"
lineage_columns = false
*/
SELECT order_id FROM {{ ref("orders_daily") }}
