package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// WriteDBT writes the project Write(dir, n, seed) writes, in dbt's format,
// for comparing compile times of the two formats (docs/dbt.md):
// dbt_project.yml and profiles.yml for project.toml, a config() call for
// each header, a properties file per folder for the checks dbt has
// (unique, not_null, accepted_values, relationships; min_rows, expect and
// row_count_matches have no dbt test and are left out), sources.yml for
// the sources. Partitioned models become microbatch models.
func WriteDBT(dir string, n int, seed int64) error {
	if n < 1 {
		return fmt.Errorf("synth: need at least one model, got %d", n)
	}
	for _, sub := range []string{"models", "macros", "seeds", "tests", "target"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	g := &gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), n: n}
	g.plan()
	w := &writer{root: dir, dirs: map[string]bool{}}
	w.file("dbt_project.yml", g.dbtProjectFile())
	w.file("profiles.yml", fmt.Sprintf("synth_%d:\n  target: local\n  outputs:\n    local:\n      type: duckdb\n      path: target/warehouse.duckdb\n      schema: main\n      threads: 4\n", n))
	for _, m := range macroFiles {
		w.file("macros/"+m.name, m.text)
	}
	w.file("seeds/status_codes.csv", "status,status_group\nnew,open\npaid,closed\nshipped,closed\nvoid,cancelled\n")
	w.file("seeds/country_codes.csv", "country,region\nDE,emea\nFR,emea\nUS,amer\nJP,apac\n")
	for i, t := range g.tests() {
		w.file(fmt.Sprintf("tests/assert_%d.sql", i+1), t)
	}
	w.file("models/sources.yml", dbtSources())
	props := map[string]*strings.Builder{}
	var b strings.Builder
	for _, m := range g.models {
		b.Reset()
		g.modelFile(&b, m) // the same draws of the generator as Write
		header, body := splitNative(b.String())
		var hdr nativeHeader
		if _, err := toml.Decode(header, &hdr); err != nil {
			return fmt.Errorf("synth: model %s: %v", m.name, err)
		}
		body = strings.ReplaceAll(body, `{{ var("source_system") }}`, `'{{ var("source_system") }}'`) // dbt's var() is raw
		w.file("models/"+m.dir+"/"+m.name+".sql", dbtConfigCall(m, hdr)+body)
		if tests := dbtTests(hdr.Checks); tests != "" {
			pb := props[m.dir]
			if pb == nil {
				pb = &strings.Builder{}
				pb.WriteString("version: 2\nmodels:\n")
				props[m.dir] = pb
			}
			fmt.Fprintf(pb, "  - name: %s\n    columns:\n%s", m.name, tests)
		}
	}
	dirs := make([]string, 0, len(props))
	for d := range props {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		w.file("models/"+d+"/_"+path.Base(d)+"_models.yml", props[d].String())
	}
	return w.err
}

// nativeHeader is what WriteDBT reads back from a generated header.
type nativeHeader struct {
	Tags   []string       `toml:"tags"`
	Checks map[string]any `toml:"checks"`
}

// splitNative splits a generated model into its header's TOML and the body.
func splitNative(text string) (string, string) {
	if !strings.HasPrefix(text, "/* idemc\n") {
		return "", text
	}
	end := strings.Index(text, "*/\n")
	return text[len("/* idemc\n"):end], text[end+3:]
}

// dbtConfigCall is the model's header as a config() call.
func dbtConfigCall(m *model, hdr nativeHeader) string {
	var kw []string
	q := func(s string) string { return "'" + s + "'" }
	folderDefault := "view"
	if m.layer == layers-1 {
		folderDefault = "table"
	}
	if m.mat != folderDefault {
		kw = append(kw, "materialized="+q(m.mat))
	}
	if m.mat == "incremental" {
		switch {
		case m.partitioned:
			kw = append(kw, "incremental_strategy='microbatch'", "event_time='event_date'", "batch_size='day'",
				"begin="+q(m.start), "lookback="+strconv.Itoa(m.lookback))
		default:
			kw = append(kw, "incremental_strategy='merge'", "unique_key='id'")
		}
		if m.watermark {
			kw = append(kw, "watermark={'column': 'updated_at', 'lag': '5m', 'overlap': '1h'}")
		}
	}
	if len(hdr.Tags) > 0 {
		tags := make([]string, len(hdr.Tags))
		for i, t := range hdr.Tags {
			tags[i] = q(t)
		}
		kw = append(kw, "tags=["+strings.Join(tags, ", ")+"]")
	}
	if len(kw) == 0 {
		return ""
	}
	return "{{ config(" + strings.Join(kw, ", ") + ") }}\n"
}

// dbtTests are the columns: entries of the checks dbt has.
func dbtTests(checks map[string]any) string {
	cols := map[string][]string{}
	var order []string
	add := func(col, test string) {
		if _, ok := cols[col]; !ok {
			order = append(order, col)
		}
		cols[col] = append(cols[col], test)
	}
	for _, k := range []string{"unique", "not_null"} {
		if list, ok := checks[k].([]any); ok {
			for _, c := range list {
				add(fmt.Sprint(c), k)
			}
		}
	}
	if av, ok := checks["accepted_values"].(map[string]any); ok {
		for col, vals := range av {
			var vs []string
			for _, v := range vals.([]any) {
				vs = append(vs, "'"+fmt.Sprint(v)+"'")
			}
			add(col, "accepted_values:\n              values: ["+strings.Join(vs, ", ")+"]")
		}
	}
	if rel, ok := checks["relationships"].(map[string]any); ok {
		for col, to := range rel {
			s := fmt.Sprint(to)
			i := strings.LastIndexByte(s, '.')
			add(col, fmt.Sprintf("relationships:\n              to: ref('%s')\n              field: %s", s[:i], s[i+1:]))
		}
	}
	var b strings.Builder
	for _, col := range order {
		fmt.Fprintf(&b, "      - name: %s\n        data_tests:\n", col)
		for _, t := range cols[col] {
			fmt.Fprintf(&b, "          - %s\n", t)
		}
	}
	return b.String()
}

// dbtProjectFile is project.toml's [vars] and [models] layers in dbt's form.
func (g *gen) dbtProjectFile() string {
	return fmt.Sprintf(`# A synthetic dbt project of %d models (internal/synth, version %d).
name: synth_%d
profile: synth_%d
vars:
  source_system: synth
  min_amount: 0
models:
  synth_%d:
    +materialized: view
    staging:
      +tags: ['staging']
    intermediate:
      +tags: ['intermediate']
    marts:
      +materialized: table
      +tags: ['marts']
seeds:
  +schema: raw
`, g.n, Version, g.n, g.n, g.n)
}

func dbtSources() string {
	var b strings.Builder
	b.WriteString("version: 2\nsources:\n")
	for _, d := range domains {
		fmt.Fprintf(&b, "  - name: raw_%s\n    schema: raw_%s\n    tables:\n", d, d)
		for _, t := range tables {
			fmt.Fprintf(&b, "      - name: %s\n", t)
		}
	}
	return b.String()
}
