package render

import (
	"strings"
	"testing"
)

// TestCrossDB: each cross-database macro's SQL per engine (the spellings
// of dbt's adapter macros; see crossdb.go), called as dbt.name(...).
// Bare name(...) and dbt_utils.name(...) must give the same.
func TestCrossDB(t *testing.T) {
	engines := []string{"duckdb", "postgres", "mysql", "snowflake", "bigquery", "spark"}
	tests := []struct {
		call string
		want []string // per engine, in the order above; one item: every engine
	}{
		{`date_trunc("month", "d")`, []string{
			"date_trunc('month', d)", "date_trunc('month', d)", "cast(date_format(d, '%Y-%m-01 00:00:00') as datetime)",
			"date_trunc('month', d)", "timestamp_trunc(cast(d as timestamp), month)", "date_trunc('month', d)"}},
		{`date_trunc("week", "d")`, []string{
			"date_trunc('week', d)", "date_trunc('week', d)", "cast(date_sub(date(d), interval weekday(d) day) as datetime)",
			"date_trunc('week', d)", "timestamp_trunc(cast(d as timestamp), week)", "date_trunc('week', d)"}},
		{`dateadd("day", 3, "d")`, []string{
			"date_add(d, interval (3) day)", "d + ((interval '1 day') * (3))", "date_add(d, interval (3) day)",
			"dateadd(day, 3, d)", "datetime_add(cast(d as datetime), interval 3 day)", "timestampadd(day, 3, d)"}},
		{`dateadd(datepart="month", interval=-1, from_date_or_timestamp="d")`, []string{
			"date_add(d, interval (-1) month)", "d + ((interval '1 month') * (-1))", "date_add(d, interval (-1) month)",
			"dateadd(month, -1, d)", "datetime_add(cast(d as datetime), interval -1 month)", "timestampadd(month, -1, d)"}},
		{`datediff("a", "b", "day")`, []string{
			"date_diff('day', cast(a as timestamp), cast(b as timestamp))", "(cast(b as date) - cast(a as date))", "timestampdiff(day, a, b)",
			"datediff(day, a, b)", "datetime_diff(cast(b as datetime), cast(a as datetime), day)", "timestampdiff(day, a, b)"}},
		{`datediff("a", "b", "month")`, []string{
			"date_diff('month', cast(a as timestamp), cast(b as timestamp))",
			"((date_part('year', cast(b as date)) - date_part('year', cast(a as date))) * 12 + date_part('month', cast(b as date)) - date_part('month', cast(a as date)))",
			"timestampdiff(month, a, b)", "datediff(month, a, b)", "datetime_diff(cast(b as datetime), cast(a as datetime), month)", "timestampdiff(month, a, b)"}},
		{`safe_cast("x", type_int())`, []string{
			"try_cast(x as INT)", "cast(x as INT)", "cast(x as SIGNED)", "try_cast(x as INT)", "safe_cast(x as INT64)", "try_cast(x as INT)"}},
		{`cast("x", "date")`, []string{"cast(x as date)"}},
		{`concat(["a", "'-'", "b"])`, []string{
			"a || '-' || b", "a || '-' || b", "concat(a, '-', b)", "a || '-' || b", "concat(a, '-', b)", "concat(a, '-', b)"}},
		{`hash("x")`, []string{
			"md5(cast(x as TEXT))", "md5(cast(x as TEXT))", "md5(cast(x as CHAR))", "md5(cast(x as TEXT))", "to_hex(md5(cast(x as STRING)))", "md5(cast(x as STRING))"}},
		{`type_string()`, []string{"TEXT", "TEXT", "CHAR", "TEXT", "STRING", "STRING"}},
		{`type_bigint()`, []string{"bigint", "bigint", "SIGNED", "bigint", "INT64", "BIGINT"}},
		{`type_float()`, []string{"FLOAT", "FLOAT", "DOUBLE", "FLOAT", "FLOAT64", "DOUBLE"}},
		{`type_numeric()`, []string{"numeric(28,6)", "numeric(28,6)", "DECIMAL(28,6)", "numeric(28,6)", "NUMERIC", "DECIMAL(28,6)"}},
		{`type_timestamp()`, []string{"TIMESTAMP", "TIMESTAMP", "DATETIME", "TIMESTAMP", "TIMESTAMP", "TIMESTAMP"}},
		{`type_boolean()`, []string{"BOOLEAN", "BOOLEAN", "SIGNED", "BOOLEAN", "BOOLEAN", "BOOLEAN"}},
		{`split_part("s", "','", 2)`, []string{
			"split_part(s, ',', 2)", "split_part(s, ',', 2)", "substring_index(substring_index(s, ',', 2), ',', -1)",
			"split_part(s, ',', 2)", "split(s, ',')[safe_offset(1)]", "split_part(s, ',', 2)"}},
		{`any_value("x")`, []string{"any_value(x)", "min(x)", "min(x)", "any_value(x)", "any_value(x)", "first(x)"}},
		{`bool_or("x > 0")`, []string{"bool_or(x > 0)", "bool_or(x > 0)", "max(x > 0)", "boolor_agg(x > 0)", "logical_or(x > 0)", "max(x > 0)"}},
		{`listagg("name")`, []string{
			"string_agg(name, ',')", "string_agg(name, ',')", "group_concat(name separator ',')",
			"listagg(name, ',')", "string_agg(name, ',')", "array_join(collect_list(name), ',')"}},
		{`listagg("name", "'|'", "order by name")`, []string{
			"string_agg(name, '|' order by name)", "string_agg(name, '|' order by name)", "group_concat(name order by name separator '|')",
			"listagg(name, '|') within group (order by name)", "string_agg(name, '|' order by name)", "ERR order_by_clause is not supported on spark"}},
		{`listagg("name", "','", none, 2)`, []string{
			"array_to_string(list_slice(array_agg(name), 1, 2), ',')", "array_to_string((array_agg(name))[1:2], ',')", "ERR limit_num is not supported on mysql",
			"array_to_string(array_slice(array_agg(name), 0, 2), ',')", "string_agg(name, ',' limit 2)", "array_join(slice(collect_list(name), 1, 2), ',')"}},
		{`last_day("d", "month")`, []string{
			"cast(date_add(date_add(date_trunc('month', d), interval (1) month), interval (-1) day) as date)",
			"cast(date_trunc('month', d) + ((interval '1 month') * (1)) + ((interval '1 day') * (-1)) as date)",
			"cast(date_add(date_add(cast(date_format(d, '%Y-%m-01 00:00:00') as datetime), interval (1) month), interval (-1) day) as date)",
			"cast(dateadd(day, -1, dateadd(month, 1, date_trunc('month', d))) as date)",
			"cast(datetime_add(cast(datetime_add(cast(timestamp_trunc(cast(d as timestamp), month) as datetime), interval 1 month) as datetime), interval -1 day) as date)",
			"cast(timestampadd(day, -1, timestampadd(month, 1, date_trunc('month', d))) as date)"}},
		{`last_day("d", "quarter")`, []string{
			"cast(date_add(date_add(date_trunc('quarter', d), interval (1) quarter), interval (-1) day) as date)",
			"cast(date_trunc('quarter', d) + ((interval '1 month') * (3)) + ((interval '1 day') * (-1)) as date)",
			"cast(date_add(date_add(cast(makedate(year(d), 1) + interval (quarter(d) - 1) quarter as datetime), interval (1) quarter), interval (-1) day) as date)",
			"cast(dateadd(day, -1, dateadd(quarter, 1, date_trunc('quarter', d))) as date)",
			"cast(datetime_add(cast(datetime_add(cast(timestamp_trunc(cast(d as timestamp), quarter) as datetime), interval 1 quarter) as datetime), interval -1 day) as date)",
			"cast(timestampadd(day, -1, timestampadd(quarter, 1, date_trunc('quarter', d))) as date)"}},
		{`escape_single_quotes("it's")`, []string{"it''s", "it''s", "it''s", "it''s", `it\'s`, `it\'s`}},
		{`string_literal("abc")`, []string{"'abc'"}},
		{`generate_surrogate_key(["id", "name"])`, []string{
			"md5(cast(coalesce(cast(id as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(name as TEXT), '_dbt_utils_surrogate_key_null_') as TEXT))",
			"md5(cast(coalesce(cast(id as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(name as TEXT), '_dbt_utils_surrogate_key_null_') as TEXT))",
			"md5(cast(concat(coalesce(cast(id as CHAR), '_dbt_utils_surrogate_key_null_'), '-', coalesce(cast(name as CHAR), '_dbt_utils_surrogate_key_null_')) as CHAR))",
			"md5(cast(coalesce(cast(id as TEXT), '_dbt_utils_surrogate_key_null_') || '-' || coalesce(cast(name as TEXT), '_dbt_utils_surrogate_key_null_') as TEXT))",
			"to_hex(md5(cast(concat(coalesce(cast(id as STRING), '_dbt_utils_surrogate_key_null_'), '-', coalesce(cast(name as STRING), '_dbt_utils_surrogate_key_null_')) as STRING)))",
			"md5(cast(concat(coalesce(cast(id as STRING), '_dbt_utils_surrogate_key_null_'), '-', coalesce(cast(name as STRING), '_dbt_utils_surrogate_key_null_')) as STRING))"}},
		{`datediff("a", "b", "fortnight")`, []string{"date_diff('fortnight', cast(a as timestamp), cast(b as timestamp))", `ERR datepart "fortnight" is not supported on postgres`,
			"timestampdiff(fortnight, a, b)", "datediff(fortnight, a, b)", "datetime_diff(cast(b as datetime), cast(a as datetime), fortnight)", "timestampdiff(fortnight, a, b)"}},
		{`dateadd("day")`, []string{"ERR dateadd() needs its interval argument"}},
		{`hash("a", "b")`, []string{"ERR hash() takes 1 arguments (field), got 2"}},
		{`hash(fields="a")`, []string{"ERR hash() has no argument fields (it takes field)"}},
	}
	for _, tt := range tests {
		for i, engine := range engines {
			want := tt.want[0]
			if len(tt.want) > 1 {
				want = tt.want[i]
			}
			for _, prefix := range []string{"dbt.", "", "dbt_utils."} {
				out := renderDBT(t, "{{ "+prefix+tt.call+" }}", engine, nil)
				if w, isErr := strings.CutPrefix(want, "ERR "); isErr {
					if !strings.Contains(out.err, w) {
						t.Errorf("%s on %s: error %q, want one with %q (text %q)", prefix+tt.call, engine, out.err, w, out.text)
					}
					continue
				}
				if out.err != "" || out.text != want {
					t.Errorf("%s on %s:\n got %q %s\nwant %q", prefix+tt.call, engine, out.text, out.err, want)
				}
			}
		}
	}
}

// TestCrossDBOverride: a project macro of a built-in's name wins, for the
// bare name and through dbt.<name>, and so does <engine>__name on that
// engine, as dbt's dispatch of its own namespace prefers the root project.
func TestCrossDBOverride(t *testing.T) {
	e, err := NewEnv([]File{{Path: "macros/h.sql", Text: `{% macro hash(f) %}sha({{ f }}){% endmacro %}
{% macro duckdb__dateadd(part, n, d) %}{{ d }} + {{ n }}{% endmacro %}`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		`{{ hash("x") }}`: "sha(x)", `{{ dbt.hash("x") }}`: "sha(x)",
		`{{ dbt.dateadd("day", 1, "d") }}`: "d + 1", `{{ dateadd("day", 1, "d") }}`: "d + 1",
		`{{ adapter.dispatch("dateadd", "dbt")("day", 1, "d") }}`: "d + 1",
	} {
		tpl, _ := e.Parse("m.sql", text)
		r, err := e.Render(tpl, text, &Context{Target: &Target{Type: "duckdb"}})
		if err != nil || r.Expand(nil) != want {
			t.Errorf("%s => %v %v, want %q", text, r, err, want)
		}
	}
	tpl, _ := e.Parse("m.sql", `{{ dateadd("day", 1, "d") }}`)
	if r, err := e.Render(tpl, `{{ dateadd("day", 1, "d") }}`, &Context{Target: &Target{Type: "postgres"}}); err != nil || r.Expand(nil) != "d + ((interval '1 day') * (1))" {
		t.Errorf("postgres: the duckdb override was used: %v %v", r, err)
	}
}
