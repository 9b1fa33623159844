/* idemc
materialized = "incremental"
unique_key   = "user_id"
*/
SELECT user_id, name, updated_at
FROM {{ source("raw", "users") }}
{% if is_incremental() %}WHERE updated_at > (SELECT max(updated_at) FROM {{ this }}){% endif %}
