{% set payment_methods = var('payment_methods') %}

with orders as (
    select * from {{ ref('stg_orders') }}
),

payments as (
    select * from {{ ref('stg_payments') }}
),

order_payments as (
    select
        order_id,
        {{ amount_by_method(payment_methods) }}
        sum(amount) as total_amount
    from payments
    group by order_id
)

select
    orders.order_id,
    orders.customer_id,
    orders.order_date,
    orders.status,
    {% for m in payment_methods -%}
    coalesce(order_payments.{{ m }}_amount, 0) as {{ m }}_amount,
    {% endfor -%}
    coalesce(order_payments.total_amount, 0) as amount
from orders
left join order_payments
    on orders.order_id = order_payments.order_id
