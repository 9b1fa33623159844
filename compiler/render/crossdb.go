package render

// crossdb.go is dbt-core's cross-database macros (dbt/include/global_project/
// macros/utils/*.sql, each dispatching to <adapter>__name) spelled per idemc
// engine. The spellings follow dbt's own adapter macros where the adapter
// has one: dbt-postgres (macros/utils/dateadd.sql, datediff.sql,
// listagg.sql, any_value.sql, last_day.sql), dbt-duckdb (utils/dateadd.sql,
// datediff.sql, listagg.sql), dbt-bigquery, dbt-snowflake and dbt-spark;
// MySQL/MariaDB use the functions both servers have (date_add,
// timestampdiff, group_concat, substring_index). generate_surrogate_key is
// dbt_utils' (macros/sql/generate_surrogate_key.sql). They are reachable
// as dbt.name(...), dbt_utils.name(...), bare name(...) and through
// adapter.dispatch("name", "dbt"); a project macro of the same name wins.

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nikolalohinski/gonja/v2/exec"
)

// callArgs are one call's arguments, bound by position or keyword.
type callArgs struct {
	va    *exec.VarArgs
	names []string
}

// get is the argument named n (its position in names), or nil.
func (a callArgs) get(n string) *exec.Value {
	for i, name := range a.names {
		if name == n {
			if i < len(a.va.Args) {
				return a.va.Args[i]
			}
			return a.va.KwArgs[n]
		}
	}
	return nil
}

// str is the argument's text; "" when absent or none.
func (a callArgs) str(n string) string {
	v := a.get(n)
	if v == nil || v.IsNil() {
		return ""
	}
	return v.String()
}

type crossFn struct {
	params []string
	// required is how many leading params must be given.
	required int
	sql      func(s *state, engine string, a callArgs) (string, error)
}

func sqlOnly(f func(engine string, a callArgs) string) func(*state, string, callArgs) (string, error) {
	return func(_ *state, engine string, a callArgs) (string, error) { return f(engine, a), nil }
}

// crossDB is every cross-database macro, by name. It is read only.
var crossDB = map[string]crossFn{
	"date_trunc": {[]string{"datepart", "date"}, 2, sqlOnly(func(e string, a callArgs) string { return dateTrunc(e, a.str("datepart"), a.str("date")) })},
	"dateadd": {[]string{"datepart", "interval", "from_date_or_timestamp"}, 3, sqlOnly(func(e string, a callArgs) string {
		return dateAdd(e, a.str("datepart"), a.str("interval"), a.str("from_date_or_timestamp"))
	})},
	"datediff": {[]string{"first_date", "second_date", "datepart"}, 3, func(_ *state, e string, a callArgs) (string, error) {
		return dateDiff(e, a.str("first_date"), a.str("second_date"), a.str("datepart"))
	}},
	"safe_cast": {[]string{"field", "type"}, 2, sqlOnly(func(e string, a callArgs) string { return safeCast(e, a.str("field"), a.str("type")) })},
	"cast": {[]string{"field", "type"}, 2, sqlOnly(func(_ string, a callArgs) string {
		return "cast(" + a.str("field") + " as " + a.str("type") + ")"
	})},
	"concat":    {[]string{"fields"}, 1, sqlOnly(func(e string, a callArgs) string { return concat(e, stringsOf(a.get("fields"))) })},
	"hash":      {[]string{"field"}, 1, sqlOnly(func(e string, a callArgs) string { return hash(e, a.str("field")) })},
	"any_value": {[]string{"expression"}, 1, sqlOnly(func(e string, a callArgs) string { return anyValue(e, a.str("expression")) })},
	"bool_or":   {[]string{"expression"}, 1, sqlOnly(func(e string, a callArgs) string { return boolOr(e, a.str("expression")) })},
	"split_part": {[]string{"string_text", "delimiter_text", "part_number"}, 3, sqlOnly(func(e string, a callArgs) string {
		return splitPart(e, a.str("string_text"), a.str("delimiter_text"), a.str("part_number"))
	})},
	"listagg": {[]string{"measure", "delimiter_text", "order_by_clause", "limit_num"}, 1, func(_ *state, e string, a callArgs) (string, error) {
		delim := a.str("delimiter_text")
		if delim == "" {
			delim = "','"
		}
		return listagg(e, a.str("measure"), delim, a.str("order_by_clause"), a.str("limit_num"))
	}},
	"last_day": {[]string{"date", "datepart"}, 2, sqlOnly(func(e string, a callArgs) string { return lastDay(e, a.str("date"), a.str("datepart")) })},
	"escape_single_quotes": {[]string{"expression"}, 1, sqlOnly(func(e string, a callArgs) string {
		if e == "bigquery" || e == "spark" {
			return strings.ReplaceAll(a.str("expression"), "'", `\'`)
		}
		return strings.ReplaceAll(a.str("expression"), "'", "''")
	})},
	"string_literal": {[]string{"value"}, 1, sqlOnly(func(_ string, a callArgs) string { return "'" + a.str("value") + "'" })},
	"current_timestamp": {nil, 0, func(*state, string, callArgs) (string, error) {
		return fixedMarkers[asOfSlot], nil // the logical time, never the clock
	}},
	"generate_surrogate_key": {[]string{"field_list"}, 1, func(s *state, e string, a callArgs) (string, error) {
		return generateSurrogateKey(s, e, stringsOf(a.get("field_list")))
	}},
	"type_string":    typeFn("string"),
	"type_int":       typeFn("int"),
	"type_bigint":    typeFn("bigint"),
	"type_float":     typeFn("float"),
	"type_numeric":   typeFn("numeric"),
	"type_timestamp": typeFn("timestamp"),
	"type_boolean":   typeFn("boolean"),
}

// asOfSlot is the fixed slot of as_of.
const asOfSlot = 3

func typeFn(t string) crossFn {
	return crossFn{nil, 0, sqlOnly(func(e string, _ callArgs) string { return typeName(e, t) })}
}

// crossDBGlobals are the bare cross-database macros, made once per Env:
// each finds the worker it runs in through the evaluator's context, so
// that a worker does not make a closure per macro (most renders never call
// one; a worker is made per template-engine render).
func crossDBGlobals() *exec.Context {
	data := make(map[string]any, len(crossDB))
	for name := range crossDB {
		data[name] = func(e *exec.Evaluator, va *exec.VarArgs) *exec.Value {
			v, _ := e.Environment.Context.Get(workerKey)
			w, ok := v.(*worker)
			if !ok {
				return exec.AsValue(fmt.Errorf("%s() is not available here", name))
			}
			return w.crossDBFunc(name)(va)
		}
	}
	return exec.NewContext(data)
}

// crossDBFunc is the template function of one cross-database macro.
func (w *worker) crossDBFunc(name string) func(*exec.VarArgs) *exec.Value {
	f := crossDB[name]
	return func(va *exec.VarArgs) *exec.Value {
		a := callArgs{va: va, names: f.params}
		if len(va.Args) > len(f.params) {
			return exec.AsValue(fmt.Errorf("%s() takes %d arguments (%s), got %d", name, len(f.params), strings.Join(f.params, ", "), len(va.Args)))
		}
		for k := range va.KwArgs {
			if !contains(f.params, k) {
				return exec.AsValue(fmt.Errorf("%s() has no argument %s (it takes %s)", name, k, strings.Join(f.params, ", ")))
			}
		}
		for _, p := range f.params[:f.required] {
			if a.get(p) == nil {
				return exec.AsValue(fmt.Errorf("%s() needs its %s argument: %s(%s)", name, p, name, strings.Join(f.params, ", ")))
			}
		}
		engine := w.cur.target().Type
		// A project's <engine>__name or default__name overrides dbt's global
		// macro, as dbt's dispatch of the dbt namespace prefers the root project.
		for _, cand := range []string{engine + "__" + name, "default__" + name} {
			if v, ok := w.ctx.Get(cand); ok && !strings.HasPrefix(cand, "__") {
				if m, isMacro := v.(exec.Macro); isMacro {
					return m(va)
				}
			}
		}
		sql, err := f.sql(w.cur, engine, a)
		if err != nil {
			return exec.AsValue(fmt.Errorf("%s(): %w", name, err))
		}
		return exec.AsSafeValue(sql)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// typeName is type_<t>() per engine: dbt's api.Column.translate_type (TEXT,
// INT, FLOAT, TIMESTAMP, BOOLEAN; bigint as written; numeric(28,6)) and the
// adapters' own Column labels. MySQL/MariaDB get the names CAST accepts
// there (CAST(x AS INT) is refused), since these are used in casts.
func typeName(engine, t string) string {
	types := map[string][7]string{
		//           string    int       bigint    float     numeric          timestamp    boolean
		"bigquery": {"STRING", "INT64", "INT64", "FLOAT64", "NUMERIC", "TIMESTAMP", "BOOLEAN"},
		"spark":    {"STRING", "INT", "BIGINT", "DOUBLE", "DECIMAL(28,6)", "TIMESTAMP", "BOOLEAN"},
		"mysql":    {"CHAR", "SIGNED", "SIGNED", "DOUBLE", "DECIMAL(28,6)", "DATETIME", "SIGNED"},
		"":         {"TEXT", "INT", "bigint", "FLOAT", "numeric(28,6)", "TIMESTAMP", "BOOLEAN"},
	}
	row, ok := types[engine]
	if !ok {
		row = types[""]
	}
	i := map[string]int{"string": 0, "int": 1, "bigint": 2, "float": 3, "numeric": 4, "timestamp": 5, "boolean": 6}[t]
	return row[i]
}

// mysqlTrunc are the DATE_FORMAT patterns that cut a datetime to a part.
var mysqlTrunc = map[string]string{
	"year": "%Y-01-01 00:00:00", "month": "%Y-%m-01 00:00:00", "day": "%Y-%m-%d 00:00:00",
	"hour": "%Y-%m-%d %H:00:00", "minute": "%Y-%m-%d %H:%i:00", "second": "%Y-%m-%d %H:%i:%s",
}

func dateTrunc(engine, part, d string) string {
	part = strings.ToLower(strings.Trim(part, `'"`))
	switch engine {
	case "bigquery":
		return "timestamp_trunc(cast(" + d + " as timestamp), " + part + ")"
	case "mysql":
		switch part {
		case "week": // Monday, as PostgreSQL's ISO weeks
			return "cast(date_sub(date(" + d + "), interval weekday(" + d + ") day) as datetime)"
		case "quarter":
			return "cast(makedate(year(" + d + "), 1) + interval (quarter(" + d + ") - 1) quarter as datetime)"
		}
		if f, ok := mysqlTrunc[part]; ok {
			return "cast(date_format(" + d + ", '" + f + "') as datetime)"
		}
	}
	return "date_trunc('" + part + "', " + d + ")"
}

func dateAdd(engine, part, n, d string) string {
	part = strings.Trim(part, `'"`)
	switch engine {
	case "postgres":
		return d + " + ((interval '1 " + part + "') * (" + n + "))"
	case "duckdb":
		return "date_add(" + d + ", interval (" + n + ") " + part + ")"
	case "mysql":
		return "date_add(" + d + ", interval (" + n + ") " + part + ")"
	case "bigquery":
		return "datetime_add(cast(" + d + " as datetime), interval " + n + " " + part + ")"
	case "spark":
		return "timestampadd(" + part + ", " + n + ", " + d + ")"
	}
	return "dateadd(" + part + ", " + n + ", " + d + ")"
}

func dateDiff(engine, a, b, part string) (string, error) {
	part = strings.ToLower(strings.Trim(part, `'"`))
	switch engine {
	case "postgres":
		return postgresDateDiff(a, b, part)
	case "duckdb":
		// dbt-duckdb writes x::timestamp; cast() is the same and the lint parser reads it
		return "date_diff('" + part + "', cast(" + a + " as timestamp), cast(" + b + " as timestamp))", nil
	case "mysql", "spark":
		return "timestampdiff(" + part + ", " + a + ", " + b + ")", nil
	case "bigquery":
		return "datetime_diff(cast(" + b + " as datetime), cast(" + a + " as datetime), " + part + ")", nil
	}
	return "datediff(" + part + ", " + a + ", " + b + ")", nil
}

// postgresDateDiff is dbt-postgres's postgres__datediff: differences of
// date parts, so that it counts boundaries crossed as datediff does on
// Snowflake.
func postgresDateDiff(a, b, part string) (string, error) {
	// dbt-postgres writes (x)::date; cast() is the same and the lint parser reads it
	dp := func(p, x, typ string) string { return "date_part('" + p + "', cast(" + x + " as " + typ + "))" }
	sub := func(p string) string { s, _ := postgresDateDiff(a, b, p); return s }
	switch part {
	case "year":
		return "(" + dp("year", b, "date") + " - " + dp("year", a, "date") + ")", nil
	case "quarter":
		return "(" + sub("year") + " * 4 + " + dp("quarter", b, "date") + " - " + dp("quarter", a, "date") + ")", nil
	case "month":
		return "(" + sub("year") + " * 12 + " + dp("month", b, "date") + " - " + dp("month", a, "date") + ")", nil
	case "day":
		return "(cast(" + b + " as date) - cast(" + a + " as date))", nil
	case "week":
		return "(" + sub("day") + " / 7 + case when " + dp("dow", a, "timestamp") + " <= " + dp("dow", b, "timestamp") +
			" then case when " + a + " <= " + b + " then 0 else -1 end else case when " + a + " <= " + b + " then 1 else 0 end end)", nil
	case "hour":
		return "(" + sub("day") + " * 24 + " + dp("hour", b, "timestamp") + " - " + dp("hour", a, "timestamp") + ")", nil
	case "minute":
		return "(" + sub("hour") + " * 60 + " + dp("minute", b, "timestamp") + " - " + dp("minute", a, "timestamp") + ")", nil
	case "second":
		return "(" + sub("minute") + " * 60 + floor(" + dp("second", b, "timestamp") + ") - floor(" + dp("second", a, "timestamp") + "))", nil
	}
	return "", fmt.Errorf("datepart %q is not supported on postgres (year, quarter, month, week, day, hour, minute, second are)", part)
}

func safeCast(engine, f, t string) string {
	switch engine {
	case "snowflake", "duckdb", "spark":
		return "try_cast(" + f + " as " + t + ")"
	case "bigquery":
		return "safe_cast(" + f + " as " + t + ")"
	}
	return "cast(" + f + " as " + t + ")"
}

func concat(engine string, fields []string) string {
	switch engine {
	case "mysql", "bigquery", "spark": // MySQL reads || as OR
		return "concat(" + strings.Join(fields, ", ") + ")"
	}
	return strings.Join(fields, " || ")
}

func hash(engine, f string) string {
	if engine == "bigquery" {
		return "to_hex(md5(cast(" + f + " as STRING)))"
	}
	return "md5(cast(" + f + " as " + typeName(engine, "string") + "))"
}

func anyValue(engine, e string) string {
	switch engine {
	case "postgres", "mysql": // PostgreSQL before 16 and MariaDB have no any_value
		return "min(" + e + ")"
	case "spark":
		return "first(" + e + ")"
	}
	return "any_value(" + e + ")"
}

func boolOr(engine, e string) string {
	switch engine {
	case "snowflake":
		return "boolor_agg(" + e + ")"
	case "bigquery":
		return "logical_or(" + e + ")"
	case "spark", "mysql":
		return "max(" + e + ")"
	}
	return "bool_or(" + e + ")"
}

func splitPart(engine, s, d, n string) string {
	switch engine {
	case "bigquery":
		idx := "(" + n + ") - 1"
		if i, err := strconv.Atoi(n); err == nil {
			idx = strconv.Itoa(i - 1)
		}
		return "split(" + s + ", " + d + ")[safe_offset(" + idx + ")]"
	case "mysql":
		return "substring_index(substring_index(" + s + ", " + d + ", " + n + "), " + d + ", -1)"
	}
	return "split_part(" + s + ", " + d + ", " + n + ")"
}

func listagg(engine, m, delim, orderBy, limit string) (string, error) {
	ob := ""
	if orderBy != "" {
		ob = " " + orderBy
	}
	switch engine {
	case "postgres":
		if limit != "" {
			return "array_to_string((array_agg(" + m + ob + "))[1:" + limit + "], " + delim + ")", nil
		}
		return "string_agg(" + m + ", " + delim + ob + ")", nil
	case "duckdb":
		if limit != "" {
			return "array_to_string(list_slice(array_agg(" + m + ob + "), 1, " + limit + "), " + delim + ")", nil
		}
		return "string_agg(" + m + ", " + delim + ob + ")", nil
	case "mysql":
		if limit != "" {
			return "", fmt.Errorf("limit_num is not supported on mysql (GROUP_CONCAT has no LIMIT on MySQL)")
		}
		return "group_concat(" + m + ob + " separator " + delim + ")", nil
	case "bigquery":
		lim := ""
		if limit != "" {
			lim = " limit " + limit
		}
		return "string_agg(" + m + ", " + delim + ob + lim + ")", nil
	case "spark":
		if orderBy != "" {
			return "", fmt.Errorf("order_by_clause is not supported on spark (collect_list has no order)")
		}
		if limit != "" {
			return "array_join(slice(collect_list(" + m + "), 1, " + limit + "), " + delim + ")", nil
		}
		return "array_join(collect_list(" + m + "), " + delim + ")", nil
	}
	wg := ""
	if orderBy != "" {
		wg = " within group (" + orderBy + ")"
	}
	if limit != "" {
		return "array_to_string(array_slice(array_agg(" + m + ")" + wg + ", 0, " + limit + "), " + delim + ")", nil
	}
	return "listagg(" + m + ", " + delim + ")" + wg, nil
}

// lastDay is dbt's default__last_day: the part's start, plus one part,
// minus a day; PostgreSQL has no quarter interval (dbt-postgres).
func lastDay(engine, d, part string) string {
	part = strings.Trim(part, `'"`)
	n, unit := "1", part
	if engine == "postgres" && part == "quarter" {
		n, unit = "3", "month"
	}
	return "cast(" + dateAdd(engine, "day", "-1", dateAdd(engine, unit, n, dateTrunc(engine, part, d))) + " as date)"
}

// generateSurrogateKey is dbt_utils.generate_surrogate_key: md5 of the
// fields cast to text, NULLs as '_dbt_utils_surrogate_key_null_' (or ”
// with the var surrogate_key_treat_nulls_as_empty_strings), joined by '-'.
func generateSurrogateKey(s *state, engine string, fields []string) (string, error) {
	if len(fields) == 0 {
		return "", fmt.Errorf(`needs a non-empty list of columns: generate_surrogate_key(["a", "b"])`)
	}
	null := "_dbt_utils_surrogate_key_null_"
	if v, ok := s.c.Vars["surrogate_key_treat_nulls_as_empty_strings"]; ok && truthy(v) {
		null = ""
	} else if v, ok := s.e.vars["surrogate_key_treat_nulls_as_empty_strings"]; ok && truthy(v) {
		null = ""
	}
	parts := make([]string, 0, 2*len(fields))
	for i, f := range fields {
		if i > 0 {
			parts = append(parts, "'-'")
		}
		parts = append(parts, "coalesce(cast("+f+" as "+typeName(engine, "string")+"), '"+null+"')")
	}
	return hash(engine, concat(engine, parts)), nil
}

func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case string:
		return x != "" && !strings.EqualFold(x, "false")
	case nil:
		return false
	}
	return true
}
