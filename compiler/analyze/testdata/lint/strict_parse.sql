-- materialized: table
-- strict_parse: true

SELECT user_id, country
FROM raw.users
QUALIFY row_number() OVER (PARTITION BY user_id ORDER BY updated_at DESC) = 1
