-- A singular test: a SELECT returning the rows that fail. `idemc test` and `idemc build` run it.
SELECT order_id, amount
FROM {{ ref("orders_daily") }}
WHERE amount < 0
