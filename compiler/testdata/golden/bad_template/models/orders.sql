/* idemc
materialized = "table"
*/
SELECT {{ no_such_macro("id") }} AS id
