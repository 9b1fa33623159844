{# Dollars from cents, per engine through adapter.dispatch: DuckDB and
   the others differ in how they divide a decimal. #}
{% macro cents_to_dollars(column_name, scale=2) -%}
    {{ return(adapter.dispatch('cents_to_dollars', 'jaffle')(column_name, scale)) }}
{%- endmacro %}

{% macro default__cents_to_dollars(column_name, scale) -%}
    round(cast({{ column_name }} as decimal(16, {{ scale }})) / 100, {{ scale }})
{%- endmacro %}

{% macro duckdb__cents_to_dollars(column_name, scale) -%}
    round(cast({{ column_name }} as decimal(16, {{ scale }})) / 100.0, {{ scale }})
{%- endmacro %}

{# One sum per payment method, a column each. #}
{% macro amount_by_method(methods) -%}
    {%- for m in methods %}
    sum(case when payment_method = '{{ m }}' then amount else 0 end) as {{ m }}_amount,
    {%- endfor %}
{%- endmacro %}
