-- materialized: table
-- allow_nondeterministic: uuid

WITH stamped AS (
  SELECT id, now() AS loaded_at, uuid() AS row_uuid
  FROM raw.orders
)
SELECT
  id,
  loaded_at,
  row_uuid,
  (SELECT max(CURRENT_TIMESTAMP) FROM raw.users) AS checked_at, -- now() in a comment is fine
  'rand()' AS not_a_call,
  RAND() AS sample,
  nextval(order_seq) AS surrogate
FROM stamped
WHERE loaded_at < sysdate() AND unix_timestamp(loaded_at) > 0
