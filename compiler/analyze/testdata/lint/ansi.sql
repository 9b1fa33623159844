-- materialized: table
-- unique_key: id

SELECT
  coalesce(a.id, b.id) AS id,
  CAST(a.amount AS DOUBLE PRECISION) AS amount,
  TRY_CAST(b.code AS INTEGER) AS code
FROM raw.a AS a
FULL OUTER JOIN raw.b AS b ON a.id = b.id
WHERE a.status IS DISTINCT FROM b.status
  OR a.flag IS NOT DISTINCT FROM NULL
ORDER BY id NULLS LAST
