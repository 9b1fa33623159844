/* idemc
materialized = "table"
*/
SELECT count(*) AS users FROM {{ ref("users_latest") }}
