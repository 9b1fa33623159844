with source as (
    select * from {{ source('jaffle_raw', 'raw_payments') }}
)

select
    id as payment_id,
    order_id,
    payment_method,
    {{ cents_to_dollars('amount') }} as amount
from source
