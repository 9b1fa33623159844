{# Amounts are kept in cents, as an exact DECIMAL that every engine spells alike. #}
{% macro cents(column) %}CAST(round({{ column }} * 100) AS DECIMAL(18, 0)){% endmacro %}
