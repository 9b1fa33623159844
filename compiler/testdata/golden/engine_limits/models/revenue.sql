/* idemc
materialized = "table"
alias        = "daily_revenue_by_country_and_product_category_for_finance_rep_x6"
*/
SELECT country, sum(amount) AS amount FROM {{ source("raw", "orders") }} GROUP BY country
