/* idemc
materialized = "ephemeral"
*/
-- Inlined as a CTE wherever it is used; never built on its own.
SELECT event_key, event_date, user_id, amount_cents
FROM {{ ref("events_daily") }}
WHERE amount_cents > 0
