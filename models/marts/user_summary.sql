/* idemc
materialized = "table"

[checks]
unique        = ["user_id"]
relationships = { user_id = "dim_users.user_id" }
min_rows      = 1
*/
SELECT
  u.user_id,
  u.country,
  count(e.event_key) AS events,
  coalesce(sum(e.amount_cents), 0) AS revenue_cents,
  min(e.event_date) AS first_event_date
FROM {{ ref("dim_users") }} AS u
LEFT JOIN {{ ref("valid_events") }} AS e ON e.user_id = u.user_id
GROUP BY u.user_id, u.country
ORDER BY u.user_id
