package render

import (
	"strings"
	"testing"
	"time"
)

var dbtAsOf = time.Date(2026, 8, 1, 6, 5, 4, 0, time.UTC)

// dbtMacros are dbt-style macro files: return(), dispatch, a macro that
// raises, one that warns and logs.
var dbtMacros = []File{{Path: "macros/dbt.sql", Text: `{% macro cols() %}{{ return(["a", "b"]) }}{% endmacro %}
{% macro settings() %}{% do return({"k": "v"}) %}unreached{% endmacro %}
{% macro early(x) %}{% if x %}{{ return("yes") }}{% endif %}{{ return("no") }}{% endmacro %}
{% macro default__greet(x) %}hi {{ x }}{% endmacro %}
{% macro postgres__greet(x) %}pg {{ x }}{% endmacro %}
{% macro greet(x) %}{{ return(adapter.dispatch('greet', 'proj')(x)) }}{% endmacro %}
{% macro greet_kw(x) %}{{ return(adapter.dispatch('greet', macro_namespace='proj')(x)) }}{% endmacro %}
{% macro boom() %}
  {{ exceptions.raise_compiler_error("bad input: " ~ target.name) }}
{% endmacro %}
{% macro careful() %}{{ exceptions.warn("careful now") }}{{ log("debug line") }}{{ log("shown", info=True) }}{% endmacro %}
`}}

type dbtOut struct {
	text     string
	err      string
	warnings []string
	logs     []string
}

// renderDBT renders text for target typ, with the fast path and without,
// and fails when they differ; markers are filled with readable names.
func renderDBT(t *testing.T, text, typ string, env map[string]string) dbtOut {
	t.Helper()
	var outs [2]dbtOut
	for i, noFast := range []bool{false, true} {
		e, err := NewEnv(dbtMacros, map[string]any{"methods": []any{"credit_card", "coupon"}, "start_date": "2018-01-01"})
		if err != nil {
			t.Fatal(err)
		}
		e.noFast = noFast
		var out dbtOut
		c := &Context{
			Known:   func(n string) bool { return n == "orders" },
			Literal: func(v any) string { return "'" + toString(v) + "'" },
			Target:  &Target{Name: "dev", Type: typ, Schema: "analytics", Database: "wh", Profile: "proj", Threads: 4},
			Project: "proj",
			This:    Relation{Schema: "analytics", Identifier: "orders"},
			Getenv:  func(n string) (string, bool) { v, ok := env[n]; return v, ok },
			Log: func(m string, info bool) {
				out.logs = append(out.logs, m+map[bool]string{true: " (info)", false: ""}[info])
			},
		}
		tpl, err := e.Parse("models/m.sql", text)
		if err == nil {
			var r *Rendered
			if r, err = e.Render(tpl, text, c); err == nil {
				out.warnings = r.Warnings
				out.text = r.Expand(func(s *Slot) string {
					switch s.Kind {
					case Ref:
						return "REF(" + s.A + ")"
					case AsOf:
						return "ASOF"
					case This:
						return "THIS"
					case AsOfText:
						return s.Text(dbtAsOf)
					}
					return "?"
				})
			}
		}
		if err != nil {
			out.err = err.Error()
		}
		outs[i] = out
	}
	if outs[0].text != outs[1].text || outs[0].err != outs[1].err {
		t.Fatalf("fast path and gonja differ:\nfast:  %q %q\ngonja: %q %q", outs[0].text, outs[0].err, outs[1].text, outs[1].err)
	}
	return outs[1]
}

func TestDBTBuiltins(t *testing.T) {
	tests := []struct {
		name, typ, text string
		want            string // the rendered text, or the error's text when it starts with "ERR "
	}{
		{"target fields", "postgres", `{{ target.name }} {{ target.type }} {{ target.schema }} {{ target.database }} {{ target.threads }} {{ target.profile_name }}`, "dev postgres analytics wh 4 proj"},
		{"branch on engine", "postgres", `{% if target.type == 'postgres' %}pg{% else %}other{% endif %}`, "pg"},
		{"branch on engine mysql", "mysql", `{% if target.type == 'postgres' %}pg{% else %}other{% endif %}`, "other"},
		{"unknown target field", "postgres", `{{ target.password }}`, `ERR models/m.sql:1:0: template error: Unable to render expression at line 1: target.password: target has no attribute "password" (it has name`},
		{"return a list", "duckdb", `{% set y = cols() %}{% for c in y %}[{{ c }}]{% endfor %} {{ y | length }}`, "[a][b] 2"},
		{"return a dict with do", "duckdb", `{% set s = settings() %}{{ s["k"] }}`, "v"},
		{"return stops the macro", "duckdb", `{{ early(true) }} {{ early(false) }}`, "yes no"},
		{"dispatch engine first", "postgres", `{{ greet("bob") }}`, "pg bob"},
		{"dispatch default", "duckdb", `{{ greet("bob") }}`, "hi bob"},
		{"dispatch macro_namespace", "postgres", `{{ greet_kw("x") }}`, "pg x"},
		{"dispatch to a built-in", "postgres", `{{ adapter.dispatch('date_trunc', 'dbt')('month', 'd') }}`, "date_trunc('month', d)"},
		{"dispatch nothing", "duckdb", `{{ adapter.dispatch('nope', 'proj')() }}`, `ERR models/m.sql:1:1: compilation error: adapter.dispatch("nope"): no macro duckdb__nope or default__nope is defined in macros/`},
		{"raise_compiler_error", "duckdb", "select 1\n  {{ boom() }}", "ERR models/m.sql:2:3: compilation error: bad input: dev"},
		{"raise in the model", "duckdb", "select\n{{ exceptions.raise_compiler_error('no') }}", "ERR models/m.sql:2:1: compilation error: no"},
		{"execute", "duckdb", `{% if execute %}x{% endif %}`, "x"},
		{"config renders nothing", "duckdb", `{{ config(materialized='table', unique_key=['a']) }}select 1`, "select 1"},
		{"docs block", "duckdb", "{% docs orders %}\nThe orders.\n{% enddocs %}select 1", "select 1"},
		{"ref with this project", "duckdb", `{{ ref('proj', 'orders') }}`, "REF(orders)"},
		{"ref with another package", "duckdb", "select\n  from {{ ref('shop', 'orders') }}", `ERR models/m.sql:2:11: ref("shop", "orders"): packages are not supported: only this project's models and seeds can be referenced, as ref("orders")`},
		{"this", "duckdb", `{{ this }}`, "THIS"},
		{"this in an expression", "duckdb", `{{ this ~ "" }} {{ this.schema }}.{{ this.identifier }} {{ this.name }}`, "THIS analytics.orders orders"},
		{"run_started_at", "duckdb", `{{ run_started_at }}|{{ run_started_at.isoformat() }}|{{ run_started_at.strftime("%Y%m%d %H:%M:%S") }}`, "2026-08-01 06:05:04+00:00|2026-08-01T06:05:04+00:00|20260801 06:05:04"},
		{"invocation_id", "duckdb", `{{ invocation_id }}`, InvocationID(dbtAsOf)},
		{"current_timestamp is as_of", "duckdb", `{{ dbt.current_timestamp() }} {{ current_timestamp() }}`, "ASOF ASOF"},
		{"env_var set", "duckdb", `{{ env_var("REGION") }}`, "eu"},
		{"env_var default", "duckdb", `{{ env_var("NOPE", "fallback") }}`, "fallback"},
		{"env_var missing", "duckdb", "select\n  {{ env_var('NOPE') }}", `ERR models/m.sql:2:6: env_var("NOPE"): NOPE is not set in the environment: set it, or give a default: env_var("NOPE", "…")`},
		{"secret renders", "duckdb", `{{ env_var("DBT_ENV_SECRET_KEY") }}`, "s3cr3t"},
		{"secret scrubbed from errors", "duckdb", `{{ exceptions.raise_compiler_error("key " ~ env_var("DBT_ENV_SECRET_KEY")) }}`, "ERR models/m.sql:1:1: compilation error: key *****"},
	}
	env := map[string]string{"REGION": "eu", "DBT_ENV_SECRET_KEY": "s3cr3t"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := renderDBT(t, tt.text, tt.typ, env)
			if want, isErr := strings.CutPrefix(tt.want, "ERR "); isErr {
				if !strings.HasPrefix(out.err, want) {
					t.Fatalf("error = %q, want prefix %q (text %q)", out.err, want, out.text)
				}
				return
			}
			if out.err != "" || out.text != tt.want {
				t.Fatalf("got %q (err %q), want %q", out.text, out.err, tt.want)
			}
		})
	}
}

// TestDBTWarnAndLog: exceptions.warn gives a warning, log() goes to the
// log callback (info only when asked), and neither prints into the SQL.
func TestDBTWarnAndLog(t *testing.T) {
	out := renderDBT(t, `select 1{{ careful() }}`, "duckdb", nil)
	if out.err != "" || out.text != "select 1" {
		t.Fatalf("got %q %q", out.text, out.err)
	}
	if len(out.warnings) != 1 || out.warnings[0] != "careful now" {
		t.Errorf("warnings = %q", out.warnings)
	}
	if strings.Join(out.logs, "|") != "debug line|shown (info)" {
		t.Errorf("logs = %q", out.logs)
	}
}

// TestSecretsNotLogged: a secret env var's value never reaches a log line
// or a warning, and a render that read one says so (the cache skips it).
func TestSecretsNotLogged(t *testing.T) {
	env := map[string]string{"DBT_ENV_SECRET_PW": "hunter2"}
	out := renderDBT(t, `{{ log("pw=" ~ env_var("DBT_ENV_SECRET_PW"), info=True) }}{{ exceptions.warn(env_var("DBT_ENV_SECRET_PW")) }}x`, "duckdb", env)
	if out.err != "" || out.text != "x" {
		t.Fatalf("got %q %q", out.text, out.err)
	}
	if strings.Contains(strings.Join(out.logs, " ")+strings.Join(out.warnings, " "), "hunter2") {
		t.Fatalf("secret printed: logs %q warnings %q", out.logs, out.warnings)
	}
	e, _ := NewEnv(nil, nil)
	tpl, _ := e.Parse("m.sql", `{{ env_var("DBT_ENV_SECRET_PW") }}`)
	r, err := e.Render(tpl, `{{ env_var("DBT_ENV_SECRET_PW") }}`, &Context{Getenv: func(string) (string, bool) { return "hunter2", true }})
	if err != nil || !r.UsesSecret || len(r.EnvVars) != 1 {
		t.Fatalf("UsesSecret = %v, EnvVars = %v, err %v", r != nil && r.UsesSecret, r, err)
	}
}

func TestStrftime(t *testing.T) {
	tm := time.Date(2026, 3, 4, 15, 6, 7, 123456000, time.UTC)
	for f, want := range map[string]string{
		"%Y-%m-%d":            "2026-03-04",
		"%H:%M:%S.%f":         "15:06:07.123456",
		"%y %j %I%p %a %b %%": "26 063 03PM Wed Mar %",
		"%A %B %w %z %Z %q":   "Wednesday March 3 +0000 UTC %q",
		"no directives":       "no directives",
		"trailing %":          "trailing %",
		"%s":                  "1772636767",
	} {
		if got := strftime(tm, f); got != want {
			t.Errorf("strftime(%q) = %q, want %q", f, got, want)
		}
	}
	if got := (&Slot{Kind: AsOfText, A: "str"}).Text(tm); got != "2026-03-04 15:06:07.123456+00:00" {
		t.Errorf("str = %q", got)
	}
	a, b := InvocationID(tm), InvocationID(tm.Add(time.Second))
	if a == b || len(a) != 36 || a[14] != '5' {
		t.Errorf("invocation ids %q %q", a, b)
	}
}

// TestDispatchRecursionBounded: macros that call each other through
// adapter.dispatch (which the recursion check cannot see) fail the model
// with a message instead of overflowing the stack; return() outside a
// macro is an error.
func TestDispatchRecursionBounded(t *testing.T) {
	e, err := NewEnv([]File{{Path: "macros/loop.sql", Text: `{% macro a() %}{{ return(adapter.dispatch('b', 'p')()) }}{% endmacro %}
{% macro default__b() %}{{ return(a()) }}{% endmacro %}`}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for text, want := range map[string]string{
		"select\n{{ a() }}": "models/m.sql:2:1: compilation error: macro calls nest deeper than 200 levels",
		`{{ return("x") }}`: "models/m.sql: return() is only allowed inside a {% macro %}",
	} {
		tpl, _ := e.Parse("models/m.sql", text)
		_, err := e.Render(tpl, text, &Context{Target: &Target{Type: "duckdb"}})
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}
