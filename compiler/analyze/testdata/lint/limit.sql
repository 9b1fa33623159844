-- materialized: table

SELECT a.id, a.v
FROM (
  SELECT id, v FROM raw.a LIMIT 100
) AS a
JOIN (SELECT id FROM raw.b ORDER BY id LIMIT 10) AS b ON b.id = a.id
WHERE a.id IN (SELECT id FROM raw.c LIMIT 0)
LIMIT 5
