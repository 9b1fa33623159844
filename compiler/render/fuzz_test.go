package render

import (
	"errors"
	"fmt"
	"testing"
)

// FuzzRender: any model text either renders or fails with a positioned
// error naming the file; it never panics, and expanding the markers of a
// successful render never panics either.
func FuzzRender(f *testing.F) {
	for _, seed := range []string{
		"SELECT 1",
		"SELECT {{ start }} AS d FROM {{ ref('a') }} WHERE x < {{ end }}",
		"{% if is_incremental() %}SELECT 1{% else %}SELECT 2{% endif %}",
		"SELECT {{ surrogate_key(['a', 'b']) }} FROM {{ source('raw', 't') }}",
		"SELECT {{ var('x') }}, {{ var('missing', 3) }}",
		"{% for i in range(3) %}SELECT {{ i }}{% if not loop.last %} UNION ALL {% endif %}{% endfor %}",
		"SELECT {{ cents('amount') }}",
		"{{ ",
		"{% if %}",
		"{{ ref('nope') }}",
		"{{ undefined_name }}",
		"{# comment #}SELECT '{{ \"}}\" }}'",
		"\x00{{ this }}\x00",
	} {
		f.Add(seed)
	}
	env, err := NewEnv([]File{{Path: "macros/m.sql", Text: "{% macro cents(c) %}({{ c }} * 100){% endmacro %}"}}, map[string]any{"x": "shop"})
	if err != nil {
		f.Fatal(err)
	}
	ctx := &Context{
		Known:       func(n string) bool { return n == "a" },
		KnownSource: func(s, t string) bool { return s == "raw" },
		Literal:     func(v any) string { return fmt.Sprintf("'%v'", v) },
	}
	f.Fuzz(func(t *testing.T, text string) {
		tpl, err := env.Parse("models/f.sql", text)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		r, err := env.Render(tpl, text, ctx)
		if err != nil {
			checkPositioned(t, err)
			return
		}
		_ = r.Expand(func(s *Slot) string { return "x" })
	})
}

func checkPositioned(t *testing.T, err error) {
	t.Helper()
	var leaves []error
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		leaves = append(leaves, e)
	}
	walk(err)
	for _, e := range leaves {
		var re *Error
		if !errors.As(e, &re) || re.Path == "" {
			t.Fatalf("error without a file: %T %v", e, e)
		}
	}
}
