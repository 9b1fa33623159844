package render

import (
	"errors"
	"strings"
	"testing"
)

// TestErrorPositions: every template mistake a user makes is reported with
// the model's path and, where the template engine knows it, the line and
// column — whichever renderer (the fast path or gonja) handles the template.
func TestErrorPositions(t *testing.T) {
	known := map[string]bool{"events": true, "users": true}
	ctx := func() *Context {
		return &Context{
			Known:       func(n string) bool { return known[n] },
			KnownSource: func(s, tb string) bool { return s == "raw" && tb == "events" },
			Literal:     func(v any) string { return "'" + toString(v) + "'" },
			SuggestRef: func(n string) string {
				if n == "evnts" {
					return "events"
				}
				return ""
			},
			Vars: map[string]any{"from_flag": "app"},
		}
	}
	tests := []struct {
		name, text string
		want       []string // each line of the error, in order
	}{
		{"unknown ref", "SELECT x\nFROM {{ ref(\"evnts\") }}",
			[]string{`models/m.sql:2:9: ref("evnts"): no model or seed named "evnts"; did you mean "events"?`}},
		{"unknown ref single quotes", "SELECT x\nFROM {{ ref('nobody') }}",
			[]string{`models/m.sql:2:9: ref("nobody"): no model or seed named "nobody"`}},
		{"unknown ref inside if", "SELECT x\n{% if true %}\nFROM {{ ref(\"evnts\") }}\n{% endif %}",
			[]string{`models/m.sql:3:9: ref("evnts"): no model or seed named "evnts"; did you mean "events"?`}},
		{"two unknown refs", "SELECT x FROM {{ ref(\"a1\") }}\nJOIN {{ ref(\"b2\") }}",
			[]string{`models/m.sql:1:18: ref("a1")`, `models/m.sql:2:9: ref("b2")`}},
		{"undeclared source", "SELECT x\n  FROM {{ source(\"raw\", \"users\") }}",
			[]string{`models/m.sql:2:11: source("raw", "users") is not declared: add it to [sources.raw] tables in project.toml`}},
		{"unknown var", "SELECT\n  {{ var(\"nope\") }} AS v",
			[]string{`models/m.sql:2:6: var("nope") is not set: add it to [vars] in project.toml, pass --vars '{"nope": …}' or give a default: var("nope", …)`}},
		{"syntax error in expression", "SELECT 1\nFROM t\nWHERE x = {{ 1 + }}",
			[]string{`models/m.sql:3:18: template error: expected either a number, string, keyword or identifier.`}},
		{"end tag without start", "SELECT 1\n{% endif %}",
			[]string{`models/m.sql:2:4: template error: ControlStructure 'endif' not found`}},
		{"undefined name", "SELECT 1\nFROM t\nWHERE s = {{ source_system }}",
			[]string{`models/m.sql:3:`, `Unable to evaluate name "source_system"`}},
		{"empty surrogate key", "SELECT {{ surrogate_key([]) }} AS k",
			[]string{`models/m.sql: surrogate_key needs a non-empty list of columns`}},
	}
	env, err := NewEnv(nil, map[string]any{"source_system": "shop"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := env.Parse("models/m.sql", tt.text)
			if err == nil {
				_, err = env.Render(tpl, tt.text, ctx())
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			msg := err.Error()
			for _, w := range tt.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error\n%s\ndoes not contain (in order)\n%s", err, w)
				}
				msg = msg[i+len(w):]
			}
			var re *Error
			if !errors.As(err, &re) {
				if j, ok := err.(interface{ Unwrap() []error }); !ok || !errors.As(j.Unwrap()[0], &re) {
					t.Fatalf("%T is not a *render.Error", err)
				}
			}
			if re.Path != "models/m.sql" {
				t.Errorf("path = %q", re.Path)
			}
		})
	}
}

func toString(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	return ""
}

// TestRecords: refs and sources are recorded once each, in order of first
// use, and the window markers are noticed, for every renderer.
func TestRecords(t *testing.T) {
	env, err := NewEnv([]File{{Path: "macros/m.sql", Text: "{% macro cents(c) %}({{ c }} * 100){% endmacro %}"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &Context{
		Known:       func(string) bool { return true },
		KnownSource: func(string, string) bool { return true },
		Literal:     func(v any) string { return "'" + toString(v) + "'" },
		Vars:        map[string]any{"sys": "shop"},
	}
	tests := []struct {
		name, text string
		refs       string
		sources    string
		window     bool
		out        string
	}{
		{"plain", "SELECT 1", "", "", false, "SELECT 1"},
		{"refs in order", `SELECT * FROM {{ ref("b") }} JOIN {{ ref('a') }} USING (k) JOIN {{ref("b")}} b2 USING (k)`, "b a", "", false,
			`SELECT * FROM <ref b> JOIN <ref a> USING (k) JOIN <ref b> b2 USING (k)`},
		{"window", `SELECT * FROM {{ source("raw", "t") }} WHERE d >= {{ start }} AND d < {{ end }}`, "", "raw.t", true,
			`SELECT * FROM <source raw.t> WHERE d >= <start> AND d < <end>`},
		{"var and macro", `SELECT {{ cents("amount") }} AS c, {{ var("sys") }} AS s`, "", "", false,
			`SELECT (amount * 100) AS c, 'shop' AS s`},
		{"gonja block", "{% if is_incremental() %}SELECT 1{% else %}SELECT {{ partition }}{% endif %}", "", "", true,
			"SELECT <partition>"},
		{"surrogate key", `SELECT {{ surrogate_key(["a", "b"]) }} AS k`, "", "", false, "SELECT <key a,b> AS k"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tpl, err := env.Parse("models/m.sql", tt.text)
			if err != nil {
				t.Fatal(err)
			}
			r, err := env.Render(tpl, tt.text, c)
			if err != nil {
				t.Fatal(err)
			}
			var srcs []string
			for _, s := range r.Sources {
				srcs = append(srcs, s[0]+"."+s[1])
			}
			if got := strings.Join(r.Refs, " "); got != tt.refs {
				t.Errorf("refs = %q, want %q", got, tt.refs)
			}
			if got := strings.Join(srcs, " "); got != tt.sources {
				t.Errorf("sources = %q, want %q", got, tt.sources)
			}
			if r.UsesWindow != tt.window {
				t.Errorf("UsesWindow = %v, want %v", r.UsesWindow, tt.window)
			}
			got := r.Expand(func(s *Slot) string {
				switch s.Kind {
				case Ref:
					return "<ref " + s.A + ">"
				case Source:
					return "<source " + s.A + "." + s.B + ">"
				case Start:
					return "<start>"
				case End:
					return "<end>"
				case Partition:
					return "<partition>"
				case SurrogateKey:
					return "<key " + strings.Join(s.Exprs, ",") + ">"
				}
				return "<?>"
			})
			if got != tt.out {
				t.Errorf("expanded\n got %q\nwant %q", got, tt.out)
			}
		})
	}
}
