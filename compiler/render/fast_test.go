package render

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/idemc/idemc/internal/synth"
)

// snapOut is one render: its result or its error.
type snapOut struct {
	Text       string
	Slots      []Slot
	Refs       []string
	Sources    [][2]string
	UsesWindow bool
	UsesAsOf   bool
	Err        string
}

// fastDone records the renders the fast path did on its own.
var fastDone = map[string]bool{}

var snapCases = map[string]string{
	"plain":       "SELECT 1",
	"ref":         `SELECT * FROM {{ ref("a") }} JOIN {{ ref('b') }} ON 1=1 JOIN {{ref("a")}} x`,
	"unknownref":  "SELECT *\nFROM {{ ref(\"nope\") }}",
	"unknownsrc":  `SELECT * FROM {{ source("raw", "nope") }}`,
	"src":         `SELECT * FROM {{ source("raw", "t") }} WHERE d >= {{ start }} AND d < {{ end }} AND p = {{ partition }}`,
	"var":         `SELECT {{ var("x") }}, {{ var("y", "dflt") }}, {{ var("n", 3) }}`,
	"unknownvar":  `SELECT {{ var("zz") }}`,
	"novar":       `SELECT {{ var() }}`,
	"sk":          `SELECT {{ surrogate_key(["a", "b"]) }}, {{ surrogate_key("c") }}`,
	"skempty":     `SELECT {{ surrogate_key([]) }}`,
	"ws":          "SELECT {{- ref(\"a\") -}} x\n{%- if is_incremental() %} y {% endif -%}\n",
	"if":          "SELECT 1\n{% if is_incremental() %}WHERE x > (SELECT max(x) FROM {{ this }}){% endif %}\n",
	"comment":     "{# c #}SELECT 1 {# {{ ref('a') }} #}",
	"crlf":        "SELECT\r\n {{ ref(\"a\") }}\r\n",
	"macro":       `SELECT {{ cents("amount") }}, {{ winsql("d") }}, {{ usesref() }}, {{ dflt() }}, {{ dflt("q") }}, {{ listy(["a","b"]) }}`,
	"macrokw":     `SELECT {{ dflt(x="k") }}`,
	"macroerr":    `SELECT {{ cents() }}`,
	"macroargs":   `SELECT {{ cents("a", "b") }}`,
	"asof":        `SELECT {{ as_of }}, {{ watermark_start }}, {{ watermark_end }}, {{ this }}`,
	"unknownname": `SELECT {{ nothing }}`,
	"filter":      `SELECT {{ "a" | upper }}`,
	"braces":      `SELECT '{{ "{{" }}'`,
	"badsyntax":   `SELECT {{ ref("a" }}`,
	"unclosed":    `SELECT {{ ref("a")`,
	"badblock":    `SELECT {% if %}`,
	"trailing":    "SELECT 1\n\n",
	"tabs":        "SELECT\t{{\tref(\"a\")\t}}",
	"newlineexpr": "SELECT {{\n  ref(\"a\")\n}}",
	"trailcomma":  `SELECT {{ ref("a",) }}`,
	"escape":      `SELECT {{ var("y", "it\'s") }}`,
	"isinc":       `SELECT {{ is_incremental() }}`,
	"range":       `SELECT {% for i in range(3) %}{{ i }}{% endfor %}`,
	"setvar":      `{% set t = ref("a") %}SELECT * FROM {{ t }}`,
	"caller":      `{% call wrap() %}inner {{ ref("a") }}{% endcall %}`,
	"lone0":       "SELECT '\x00'",
	"curly":       "SELECT '{' || '}' , '{ {' ",
	"refint":      `SELECT {{ ref(1) }}`,
	"reftwo":      `SELECT {{ ref("a", "b") }}`,
	"srcone":      `SELECT {{ source("raw") }}`,
	"unicode":     "SELECT 'é' AS {{ ref(\"a\") }} -- ü",
	"shared":      `SELECT {{ shared }}`,
	"setthenuse":  `{% set shared = "M" %}SELECT {{ cents("x") }}`,
	"callnested":  `{% if true %}{% call wrap() %}inner{% endcall %}{% endif %}`,
	"selfref":     `SELECT {{ self }}`,
	"twomacro":    `{{ cents("a") }}{{ winsql("b") }}{{ ref("b") }}{{ usesref() }}{{ ref("a") }}`,
	"strlistmix":  `{{ listy(["a", 'b']) }}{{ surrogate_key(['x']) }}{{ var('y', 'z') }}`,
	"spaceparen":  `{{ ref ("a") }}`,
	"dotted":      `{{ this.name }}`,
	"emptyexpr":   `{{ }}`,
	"unknownsrc2": `{{ source("other", "t") }}`,
}

var snapMacros = []File{
	{Path: "macros/a.sql", Text: `{% macro cents(column) %}CAST(round({{ column }} * 100) AS BIGINT){% endmacro %}
{% macro winsql(col) %}{{ col }} >= {{ start }} AND {{ col }} < {{ end }}{% endmacro %}`},
	{Path: "macros/b.sql", Text: `{# doc #}
{% macro usesref() -%} {{ ref("a") }} / {{ source("raw", "t") }} / {{ var("x") }} / {{ is_incremental() }} {%- endmacro %}
{% macro dflt(x=start) %}[{{ x }}]{% endmacro %}
{% macro listy(cols) %}{% for c in cols %}{{ c }}{% if not loop.last %},{% endif %}{% endfor %}{% endmacro %}
{% macro wrap() %}<{{ caller() }}>{% endmacro %}`},
}

func snapContext(inc bool) *Context {
	known := map[string]bool{"a": true, "b": true}
	return &Context{
		Known:         func(n string) bool { return known[n] || strings.Contains(n, "_0") },
		KnownSource:   func(s, t string) bool { return s == "raw" && t == "t" || strings.HasPrefix(s, "raw_") },
		Literal:       func(v any) string { return fmt.Sprintf("L<%T:%v>", v, v) },
		SuggestRef:    func(n string) string { return "a" },
		IsIncremental: inc,
		Vars:          map[string]any{"y": "fromvars"},
	}
}

var snapCorpusText map[string]string

func snapCorpus(t *testing.T) map[string]string {
	out := map[string]string{}
	snapCorpusText = out
	for k, v := range snapCases {
		out["case/"+k] = v
	}
	dir := t.TempDir()
	if err := synth.Write(dir, 600, 3); err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(filepath.Join(dir, "models"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			s := string(b)
			if i := strings.Index(s, "*/\n"); strings.HasPrefix(s, "/* idemc") && i > 0 {
				s = strings.Repeat("\n", strings.Count(s[:i+3], "\n")) + s[i+3:]
			}
			out["synth/"+filepath.Base(p)] = s
		}
		return nil
	})
	return out
}

// snapshot renders the corpus, with the fast path or with gonja only.
func snapshot(t *testing.T, noFast bool) map[string]snapOut {
	res := snapshotWith(t, "", nil, noFast)
	// A macro file that does more than define macros: no fast path, and
	// the macro files run afresh for every render.
	for k, v := range snapshotWith(t, "sideeffect/", []File{{Path: "macros/c.sql", Text: `{% set shared = "S" %}{{ ref("a") }}{% macro cents(c) %}[{{ shared }}{{ c }}]{% endmacro %}`}}, noFast) {
		res[k] = v
	}
	return res
}

func snapshotWith(t *testing.T, prefix string, extra []File, noFast bool) map[string]snapOut {
	var macros []File
	macros = append(macros, snapMacros...)
	macros = append(macros, extra...)
	dir := t.TempDir()
	synth.Write(dir, 1, 1)
	ms, _ := filepath.Glob(filepath.Join(dir, "macros", "*.sql"))
	sort.Strings(ms)
	for _, m := range ms {
		b, _ := os.ReadFile(m)
		macros = append(macros, File{Path: m, Text: string(b)})
	}
	env, err := NewEnv(macros, map[string]any{"x": int64(7), "source_system": "s"})
	if err != nil {
		t.Fatal(err)
	}
	env.noFast = noFast
	res := map[string]snapOut{}
	for name, text := range snapCorpus(t) {
		for _, inc := range []bool{false, true} {
			if prefix != "" && strings.HasPrefix(name, "synth/") && !strings.HasSuffix(name, "0.sql") {
				continue
			}
			key := fmt.Sprintf("%s%s/inc=%v", prefix, name, inc)
			var o snapOut
			tpl, err := env.Parse(name, text)
			if err == nil {
				var r *Rendered
				if tpl.fast != nil {
					var ok bool
					if r, ok = env.renderFast(tpl, snapContext(inc)); ok {
						fastDone[key] = true
					}
				}
				if r == nil {
					r, err = env.Render(tpl, text, snapContext(inc))
				}
				if err == nil {
					o = snapOut{Text: r.text, Slots: r.slots, Refs: r.Refs, Sources: r.Sources, UsesWindow: r.UsesWindow, UsesAsOf: r.UsesAsOf}
				}
			}
			if err != nil {
				o.Err = err.Error()
			}
			res[key] = o
		}
	}
	return res
}

// TestFastPathMatchesGonja: for every template of the corpus (hand-written
// edge cases and 600 generated models), twice (is_incremental() true and
// false), the fast path gives the same text, markers, refs, sources and
// flags as gonja alone — or the same error, since it hands every error over.
func TestFastPathMatchesGonja(t *testing.T) {
	fast, slow := snapshot(t, false), snapshot(t, true)
	if len(fast) != len(slow) || len(fast) < 1200 {
		t.Fatalf("%d and %d renders", len(fast), len(slow))
	}
	taken := 0
	for k, want := range slow {
		got := fast[k]
		// Every generated model without a {% block %} is the fast path's.
		if name, ok := strings.CutPrefix(k, "synth/"); ok && want.Err == "" && !fastDone[k] {
			name = strings.TrimSuffix(strings.TrimSuffix(name, "/inc=true"), "/inc=false")
			if !strings.Contains(snapCorpusText["synth/"+name], "{%") {
				t.Errorf("%s: gonja rendered it, the fast path did not", k)
			}
		}
		if fastDone[k] {
			taken++
		}
		wb, _ := json.Marshal(want)
		gb, _ := json.Marshal(got)
		if string(wb) != string(gb) {
			t.Errorf("%s:\n fast  %s\n gonja %s", k, gb, wb)
		}
	}
	if taken < len(slow)/2 {
		t.Errorf("the fast path rendered only %d of %d", taken, len(slow))
	}
}

// TestFastPathTaken: the templates the fast path is for do not reach gonja.
func TestFastPathTaken(t *testing.T) {
	env, err := NewEnv(snapMacros, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"SELECT 1",
		`SELECT {{ surrogate_key(["a", 'b']) }}, {{ cents("x") }}, {{ listy(["a"]) }} FROM {{ ref("a") }} JOIN {{ source('raw', 't') }}` + "\nWHERE d >= {{ start }} AND d < {{end}} AND {{ var('x') }} AND {{ var(\"y\", \"z\") }} {{ this }}",
		"{{\n  ref(\"a\")\n}}",
	} {
		tpl, err := env.Parse("m.sql", text)
		if err != nil {
			t.Fatal(err)
		}
		if tpl.fast == nil {
			t.Errorf("no fast path for %q", text)
		}
	}
	for _, text := range []string{
		"{% if true %}x{% endif %}", "{# c #}", "{{- ref('a') }}", "{{ ref('a') -}}", "{{ x | upper }}", "{{ var('n', 3) }}",
		"{{ ref(name='a') }}", "{{ ref('a',) }}", "{{ ref ('a') }}", "{{ this.name }}", "{{ nothing }}", "a\r\nb", `{{ ref("a\"b") }}`,
	} {
		tpl, err := env.Parse("m.sql", text)
		if err == nil && tpl.fast != nil {
			t.Errorf("fast path for %q", text)
		}
	}
}

// FuzzFastPathMatchesGonja: whatever the template, the fast path and gonja
// alone give the same result (text, markers, refs, sources, flags) or the
// same error.
func FuzzFastPathMatchesGonja(f *testing.F) {
	for _, text := range snapCases {
		f.Add(text)
	}
	fast, err := NewEnv(snapMacros, map[string]any{"x": int64(7)})
	if err != nil {
		f.Fatal(err)
	}
	slow, _ := NewEnv(snapMacros, map[string]any{"x": int64(7)})
	slow.noFast = true
	render := func(env *Env, text string) string {
		var o snapOut
		tpl, err := env.Parse("m.sql", text)
		if err == nil {
			var r *Rendered
			if r, err = env.Render(tpl, text, snapContext(true)); err == nil {
				o = snapOut{Text: r.text, Slots: r.slots, Refs: r.Refs, Sources: r.Sources, UsesWindow: r.UsesWindow, UsesAsOf: r.UsesAsOf}
			}
		}
		if err != nil {
			o.Err = err.Error()
		}
		b, _ := json.Marshal(o)
		return string(b)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if got, want := render(fast, text), render(slow, text); got != want {
			t.Errorf("%q:\n fast  %s\n gonja %s", text, got, want)
		}
	})
}
