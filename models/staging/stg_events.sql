/* idemc
materialized = "view"
tags         = ["staging"]
[checks]
not_null = ["source_system", "source_id"]
*/
-- The latest version of every event; late rows arrive with a later loaded_at.
SELECT source_system, source_id, event_version, event_date, user_id, amount, loaded_at
FROM (
  SELECT
    e.source_system, e.source_id, e.event_version, e.event_date, e.user_id, e.amount, e.loaded_at,
    row_number() OVER (PARTITION BY e.source_system, e.source_id ORDER BY e.event_version DESC, e.loaded_at DESC) AS version_rank
  FROM {{ source("raw", "staging_events") }} AS e
) AS versions
WHERE version_rank = 1
