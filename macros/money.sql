{# Amounts are stored in cents so sums are exact on every engine. #}
{% macro cents(column) %}CAST(round({{ column }} * 100) AS BIGINT){% endmacro %}
