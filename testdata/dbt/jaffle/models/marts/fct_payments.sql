{{
    config(
        materialized='incremental',
        unique_key='payment_id',
        incremental_strategy='delete+insert',
        on_schema_change='fail'
    )
}}

select
    payment_id,
    order_id,
    payment_method,
    amount
from {{ ref('stg_payments') }}
{% if is_incremental() %}
where payment_id > (select max(payment_id) from {{ this }})
{% endif %}
