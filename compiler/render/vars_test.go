package render

import (
	"fmt"
	"strings"
	"testing"
)

// TestVarValues: var() in native projects gives lists and maps to the
// template as values ({% for %} iterates the items) and prints a list as a
// SQL list, refusing what is not SQL; with RawVars it is dbt's var(), the
// value as it is. Both renderers agree on each.
func TestVarValues(t *testing.T) {
	vars := map[string]any{
		"methods":    []any{"credit_card", "coupon"},
		"ids":        []any{int64(1), int64(20)},
		"none":       []any{},
		"nested":     []any{[]any{"a"}},
		"quoted":     []any{"it's"},
		"weights":    map[string]any{"a": int64(2)},
		"start_date": "2018-01-01",
		"n":          int64(7),
	}
	tests := []struct {
		name string
		raw  bool
		text string
		want string // or "ERR " and a part of the error
	}{
		{"list in for", false, `{% for m in var('methods') %}<{{ m }}>{% endfor %}`, "<credit_card><coupon>"},
		{"list printed", false, `x in {{ var('methods') }}`, "x in ('credit_card', 'coupon')"},
		{"list printed twice", false, `{{ var("ids") }} {{ var("methods") }}`, "(1, 20) ('credit_card', 'coupon')"},
		{"list items are literals", false, `{{ var('quoted') }}`, "('it''s')"},
		{"list length and index", false, `{{ var('methods') | length }} {{ var('methods')[1] }}`, "2 coupon"},
		{"list default", false, `{{ var('missing', ['a']) }}`, "('a')"},
		{"empty list printed", false, "x in\n{{ var('none') }}", `ERR an empty list was printed`},
		{"empty list tested", false, `{% if var('none') %}x{% else %}empty{% endif %}`, "empty"},
		{"nested list printed", false, `{{ var('nested') }}`, "ERR a list of lists or maps"},
		{"map index", false, `{{ var('weights')['a'] }}`, "2"},
		{"map items", false, `{% for k, v in var('weights').items() %}{{ k }}={{ v }}{% endfor %}`, "a=2"},
		{"map printed", false, `{{ var('weights') }}`, "ERR a map is not SQL"},
		{"scalar literal", false, `{{ var('start_date') }} {{ var('n') }}`, "'2018-01-01' 7"},
		{"raw string", true, `'{{ var("start_date") }}'`, "'2018-01-01'"},
		{"raw default", true, `{{ var("missing", "x") }}`, "x"},
		{"raw number", true, `{{ var("n") + 1 }}`, "8"},
		{"raw list in for", true, `{% for m in var('methods') %}<{{ m }}>{% endfor %}`, "<credit_card><coupon>"},
		{"raw list printed as dbt does", true, `{{ var('methods') }}`, "['credit_card', 'coupon']"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got [2]string
			for i, noFast := range []bool{false, true} {
				e, err := NewEnv(nil, vars)
				if err != nil {
					t.Fatal(err)
				}
				e.noFast = noFast
				c := &Context{Literal: func(v any) string {
					if s, ok := v.(string); ok {
						return "'" + strings.ReplaceAll(s, "'", "''") + "'"
					}
					return fmt.Sprint(v)
				}, RawVars: tt.raw}
				tpl, err := e.Parse("models/m.sql", tt.text)
				if err == nil {
					var r *Rendered
					if r, err = e.Render(tpl, tt.text, c); err == nil {
						got[i] = r.Expand(func(*Slot) string { return "?" })
					}
				}
				if err != nil {
					got[i] = "ERR " + err.Error()
				}
			}
			if got[0] != got[1] {
				t.Fatalf("fast path %q, gonja %q", got[0], got[1])
			}
			if want, isErr := strings.CutPrefix(tt.want, "ERR "); isErr {
				if !strings.HasPrefix(got[0], "ERR models/m.sql: ") || !strings.Contains(got[0], want) {
					t.Fatalf("got %q, want an error naming the file with %q", got[0], want)
				}
				return
			}
			if got[0] != tt.want {
				t.Fatalf("got %q, want %q", got[0], tt.want)
			}
		})
	}
}
