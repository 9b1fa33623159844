/* idemc
materialized = "table"

[checks]
unique = ["code"]
*/
SELECT code, name, population FROM {{ ref("countries") }} WHERE eu
