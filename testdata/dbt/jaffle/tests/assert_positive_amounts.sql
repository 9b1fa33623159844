-- Payments are never negative.
select payment_id, amount
from {{ ref('fct_payments') }}
where amount < 0
