package render

import (
	"strings"
	"testing"
)

// TestNestingBound: templates nested past MaxNesting are refused with a
// position before gonja recurses (100,000 levels overflowed the Go stack,
// a fatal error), in models and in macro files; nesting at the bound and
// brackets inside strings still render.
func TestNestingBound(t *testing.T) {
	deep := func(open, close string, n int) string {
		return strings.Repeat(open, n) + "1" + strings.Repeat(close, n)
	}
	tests := []struct {
		name, text string
		want       string // "" = accepted
	}{
		{"100k parentheses", "SELECT\n  {{ " + deep("(", ")", 100000) + " }} AS x", "m.sql:2:206: template nests brackets deeper than 200 levels"},
		{"100k brackets", "SELECT {{ " + deep("[", "]", 100000) + " }} AS x", "nests brackets deeper than 200"},
		{"100k dict braces", "SELECT {{ " + deep("{'a': ", "}", 100000) + " }} AS x", "nests brackets deeper than 200"},
		{"brackets in a statement", "{% set x = " + deep("(", ")", 300) + " %}SELECT 1", "nests brackets deeper"},
		{"nested ifs", "SELECT 1\n" + strings.Repeat("{% if true %}", 201) + strings.Repeat("{% endif %}", 201), "m.sql:2:2601: template nests blocks deeper than 200 levels"},
		{"nested fors, trimmed tags", strings.Repeat("{%- for i in [1] -%}", 300) + "SELECT 1" + strings.Repeat("{%- endfor -%}", 300), "nests blocks deeper"},
		{"at the bound", "SELECT {{ " + deep("(", ")", 200) + " }} AS x", ""},
		{"sequential blocks", "SELECT 1" + strings.Repeat("{% if true %} {% endif %}", 1000), ""},
		{"brackets in a string", "SELECT '{{ '" + strings.Repeat("(", 500) + "' }}' AS x", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEnv(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.Parse("models/m.sql", tc.text)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Parse: %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Parse: %v, want an error containing %q", err, tc.want)
			}
			// A macro file is parsed by NewEnv: the same bound holds.
			_, err = NewEnv([]File{{Path: "macros/m.sql", Text: tc.text}}, nil)
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), "deeper than 200")) {
				t.Fatalf("NewEnv: %v, want the nesting error", err)
			}
		})
	}
}

// TestRecursiveMacros: a macro that calls itself, directly or through
// others (in one file or across macro files), is refused with its position
// (runaway recursion overflowed the Go stack); calls without a cycle and
// SQL text that looks like a call are fine.
func TestRecursiveMacros(t *testing.T) {
	tests := []struct {
		name   string
		macros []File
		model  string
		want   string
	}{
		{"self in a model", nil, "SELECT 1\n{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(1) }}",
			"models/m.sql:2:1: macro f calls itself (f → f)"},
		{"mutual in one macro file", []File{{Path: "macros/a.sql", Text: "{% macro a() %}{{ b() }}{% endmacro %}\n{%- macro b() -%}{{ a() }}{% endmacro %}"}}, "SELECT 1",
			"macros/a.sql:1:1: macro a calls itself (a → b → a)"},
		{"across macro files", []File{
			{Path: "macros/a.sql", Text: "{% macro a() %}{{ b() }}{% endmacro %}"},
			{Path: "macros/b.sql", Text: "\n{% macro b() %}{% if true %}{{ a() }}{% endif %}{% endmacro %}"}}, "SELECT 1",
			"macros/a.sql:1:1: macro a calls itself (a → b → a)"},
		{"a chain", []File{{Path: "macros/a.sql", Text: "{% macro a() %}{{ b() }}{% endmacro %}{% macro b() %}x{% endmacro %}"}}, "SELECT {{ a() }}", ""},
		{"its name in the SQL text", nil, "{% macro coalesce(x) %}coalesce({{ x }}, 0){% endmacro %}SELECT {{ coalesce('a') }}", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, err := NewEnv(tc.macros, nil)
			if err == nil {
				_, err = e.Parse("models/m.sql", tc.model)
			}
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
