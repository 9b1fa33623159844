-- materialized: incremental
-- strategy: merge
-- unique_key: user_key

WITH numbered AS (
  SELECT
    row_number() OVER (ORDER BY created_at) AS seq,
    rank() OVER (PARTITION BY country) AS country_rank,
    user_id,
    country
  FROM raw.users
)
SELECT
  seq AS user_key,
  user_id,
  country,
  country_rank,
  dense_rank() OVER w AS by_country
FROM numbered
WINDOW w AS (PARTITION BY country)
