package render

import (
	"strconv"
	"testing"
)

// TestCachedRoundTrip: a render read back from its cached form expands to
// the same text and names the same refs, sources and uses.
func TestCachedRoundTrip(t *testing.T) {
	env, err := NewEnv([]File{{Path: "macros/m.sql", Text: "{% macro inc() %}{% if is_incremental() %}1{% else %}0{% endif %}{% endmacro %}"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := &Context{Known: func(string) bool { return true }, KnownSource: func(string, string) bool { return true },
		Literal: func(v any) string { return "'" + v.(string) + "'" }, SuggestRef: func(string) string { return "" }, IsIncremental: true}
	for _, text := range []string{
		"SELECT 1",
		"SELECT * FROM {{ ref('a') }} JOIN {{ source('s', 't') }} USING (k) WHERE d >= {{ start }} AND d < {{ end }}",
		"SELECT {{ surrogate_key(['a', 'b']) }} AS k, {{ as_of }} AS t, {{ inc() }} AS i FROM {{ this }}",
	} {
		tpl, err := env.Parse("models/x.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		r, err := env.Render(tpl, text, ctx)
		if err != nil {
			t.Fatal(err)
		}
		c := r.Cache()
		back := c.Rendered()
		fill := func(s *Slot) string { return strconv.Itoa(int(s.Kind)) + s.A + s.B + strconv.Itoa(len(s.Exprs)) }
		if got, want := back.Expand(fill), r.Expand(fill); got != want {
			t.Errorf("%q: expands to %q, want %q", text, got, want)
		}
		if len(back.Refs) != len(r.Refs) || len(back.Sources) != len(r.Sources) || back.UsesWindow != r.UsesWindow ||
			back.UsesAsOf != r.UsesAsOf || back.UsesIncremental != r.UsesIncremental {
			t.Errorf("%q: read back as %+v, want %+v", text, back, r)
		}
	}
}
