// Package synth writes synthetic idemc projects for benchmarks: n models in a
// layered DAG with a realistic mix of materializations, refs, macros, checks,
// sources, seeds, tags and folders.
//
// The output depends only on n and seed: the same call writes the same bytes.
// Every generated model compiles with no lint finding (no error, no warning,
// no L000 note) on every target of the project.
//
// Shape of a project of n models:
//
//   - 8 domains (sales, marketing, …), each with a source of 6 raw tables;
//   - 7 layers: staging (20%, reads sources), intermediate/l1..l5 (55%),
//     marts (25%); a model refs 1–4 models of earlier layers, mostly the
//     layer just before and mostly its own domain;
//   - about 45% views, 25% tables, 25% incremental (three quarters
//     delete_insert partitioned by day with a start, the rest merge on a
//     unique_key, half of those with a watermark), 5% ephemeral;
//   - 5 macros in macros/, used by about 30% of the models;
//   - a few checks on every incremental model and some tables;
//   - 2 seeds and 3 singular tests.
package synth

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Version changes whenever the generated text changes, so that cached
// projects (benchmarks) can tell they are stale.
const Version = 1

// Partition is a partition every partitioned model has (every start is on
// or before it), for `idemc compile --partition`.
const Partition = "2026-07-01"

var domains = []string{"sales", "marketing", "finance", "product", "support", "ops", "growth", "risk"}

var tables = []string{"orders", "customers", "events", "payments", "sessions", "refunds"}

const layers = 7 // staging, intermediate l1..l5, marts

// Layer shares (in per mille), by layer.
var layerShare = [layers]int{200, 110, 110, 110, 110, 110, 250}

type model struct {
	idx         int
	name        string
	layer       int
	domain      string
	dir         string // slash path under models/
	mat         string // view, table, incremental, ephemeral
	strategy    string // incremental: delete_insert or merge
	partitioned bool
	watermark   bool
	start       string
	lookback    int
	refs        []*model
	seed        string // a seed joined in ("" for none)
	shape       shape
	macros      bool // uses project macros
	srcDomain   string
	srcTable    string
	useVar      bool
	checks      bool // tables: declare checks
	tags        bool // header tags
}

type shape int

const (
	shapeStaging shape = iota
	shapeJoin
	shapeAggregate
	shapeDedupe
	shapeUnion
	shapeStar
)

// Write writes a project of n models into dir: project.toml, models/,
// macros/, seeds/ and tests/. Those are replaced if they exist; nothing else
// in dir is touched.
func Write(dir string, n int, seed int64) error {
	if n < 1 {
		return fmt.Errorf("synth: need at least one model, got %d", n)
	}
	if err := resetDirs(dir); err != nil {
		return err
	}
	g := &gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), n: n}
	g.plan()
	w := &writer{root: dir, dirs: map[string]bool{}}
	w.file("project.toml", g.projectFile())
	for _, m := range macroFiles {
		w.file("macros/"+m.name, m.text)
	}
	w.file("seeds/status_codes.csv", "status,status_group\nnew,open\npaid,closed\nshipped,closed\nvoid,cancelled\n")
	w.file("seeds/country_codes.csv", "country,region\nDE,emea\nFR,emea\nUS,amer\nJP,apac\n")
	for i, t := range g.tests() {
		w.file(fmt.Sprintf("tests/assert_%d.sql", i+1), t)
	}
	var b strings.Builder
	for _, m := range g.models {
		b.Reset()
		g.modelFile(&b, m)
		w.file("models/"+m.dir+"/"+m.name+".sql", b.String())
	}
	return w.err
}

type writer struct {
	root string
	dirs map[string]bool
	err  error
}

func (w *writer) file(rel, text string) {
	if w.err != nil {
		return
	}
	full := filepath.Join(w.root, filepath.FromSlash(rel))
	if d := filepath.Dir(full); !w.dirs[d] {
		if err := os.MkdirAll(d, 0o755); err != nil {
			w.err = err
			return
		}
		w.dirs[d] = true
	}
	w.err = os.WriteFile(full, []byte(text), 0o644)
}

type gen struct {
	rng    *rand.Rand
	n      int
	models []*model
	// byLayer[l][d] lists the models of layer l and domain index d.
	byLayer [layers][][]*model
}

func (g *gen) chance(p float64) bool { return g.rng.Float64() < p }

func (g *gen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// plan decides every model before any text is written.
func (g *gen) plan() {
	for l := range g.byLayer {
		g.byLayer[l] = make([][]*model, len(domains))
	}
	// Layer sizes: shares of n, at least one staging model.
	sizes := make([]int, layers)
	total := 0
	for l := range layers {
		sizes[l] = g.n * layerShare[l] / 1000
		total += sizes[l]
	}
	sizes[0] += g.n - total
	idx := 0
	for l := range layers {
		for range sizes[l] {
			g.models = append(g.models, g.planModel(idx, l))
			idx++
		}
	}
}

func (g *gen) planModel(idx, layer int) *model {
	d := g.rng.IntN(len(domains))
	m := &model{idx: idx, layer: layer, domain: domains[d]}
	switch {
	case layer == 0:
		m.dir = "staging/" + m.domain
	case layer == layers-1:
		m.dir = "marts/" + m.domain
	default:
		m.dir = "intermediate/l" + strconv.Itoa(layer) + "/" + m.domain
	}
	g.materialize(m)
	m.checks = m.mat == "table" && g.chance(0.4)
	m.tags = m.partitioned || g.chance(0.2)
	prefix := "int"
	switch {
	case layer == 0:
		prefix = "stg"
	case layer == layers-1 && m.mat == "table" && g.chance(0.3):
		prefix = "dim"
	case layer == layers-1:
		prefix = "fct"
	}
	m.name = fmt.Sprintf("%s_%s_%06d", prefix, m.domain, idx)
	m.macros = g.chance(0.30)

	if layer == 0 {
		m.shape = shapeStaging
		m.srcDomain = m.domain
		m.srcTable = g.pick(tables)
		m.useVar = g.chance(0.1)
	} else {
		g.shapeAndRefs(m, d)
	}
	g.byLayer[layer][d] = append(g.byLayer[layer][d], m)
	return m
}

// materialize draws a model's materialization and, for an incremental
// one, its strategy and partitioning.
func (g *gen) materialize(m *model) {
	r := g.rng.Float64()
	switch {
	case r < 0.45:
		m.mat = "view"
	case r < 0.70:
		m.mat = "table"
	case r < 0.95:
		m.mat = "incremental"
	default:
		m.mat = "ephemeral"
	}
	if m.mat == "ephemeral" && m.layer == layers-1 {
		m.mat = "view" // nothing would read it
	}
	if m.mat != "incremental" {
		return
	}
	switch r := g.rng.Float64(); {
	case r < 0.75:
		m.strategy, m.partitioned = "delete_insert", true
		m.start = "2026-06-" + fmt.Sprintf("%02d", 1+g.rng.IntN(30))
		if g.chance(0.2) {
			m.start = Partition
		}
		m.lookback = g.rng.IntN(3)
	case r < 0.875:
		m.strategy, m.watermark = "merge", true
	default:
		m.strategy = "merge"
	}
}

// shapeAndRefs draws the SELECT's shape of a model above the staging
// layer and the upstream models it reads (domain d's first).
func (g *gen) shapeAndRefs(m *model, d int) {
	r := g.rng.Float64()
	switch {
	case r < 0.50:
		m.shape = shapeJoin
	case r < 0.70:
		m.shape = shapeAggregate
	case r < 0.85:
		m.shape = shapeDedupe
	case r < 0.95:
		m.shape = shapeUnion
	default:
		m.shape = shapeStar
	}
	if m.shape == shapeStar && m.mat == "incremental" {
		m.shape = shapeJoin // SELECT * in an incremental model is a lint warning
	}
	nrefs := 1
	switch m.shape {
	case shapeJoin:
		nrefs = 1 + g.rng.IntN(4)
	case shapeAggregate:
		nrefs = 1 + g.rng.IntN(2)
	case shapeUnion:
		nrefs = 2
	}
	for range nrefs * 4 { // tries
		if len(m.refs) == nrefs {
			break
		}
		up := g.upstream(m.layer, d)
		if up != nil && !hasModel(m.refs, up) {
			m.refs = append(m.refs, up)
		}
	}
	if m.shape == shapeUnion && len(m.refs) < 2 {
		m.shape = shapeJoin
	}
	if m.shape == shapeJoin && g.chance(0.05) {
		m.seed = "status_codes"
	}
}

// upstream picks a model of an earlier layer: the layer just before 70% of
// the time, the model's own domain 75% of the time.
func (g *gen) upstream(layer, domain int) *model {
	l := layer - 1
	if !g.chance(0.7) {
		l = g.rng.IntN(layer)
	}
	d := domain
	if !g.chance(0.75) {
		d = g.rng.IntN(len(domains))
	}
	for ; l >= 0; l-- {
		if list := g.byLayer[l][d]; len(list) > 0 {
			return list[g.rng.IntN(len(list))]
		}
		for dd := range domains {
			if list := g.byLayer[l][(d+dd)%len(domains)]; len(list) > 0 {
				return list[g.rng.IntN(len(list))]
			}
		}
	}
	return nil
}

func hasModel(list []*model, m *model) bool {
	for _, x := range list {
		if x == m {
			return true
		}
	}
	return false
}

func (g *gen) projectFile() string {
	var b strings.Builder
	fmt.Fprintf(&b, `# A synthetic idemc project of %d models (internal/synth, version %d).
name = "synth_%d"
default_target = "local"

[targets.local]
engine = "duckdb"
path   = "target/warehouse.duckdb"
schema = "main"

[targets.pg]
engine = "postgres"
dsn    = "${IDEMC_PG_DSN}"
schema = "analytics"

`, g.n, Version, g.n)
	for _, d := range domains {
		fmt.Fprintf(&b, "[sources.raw_%s]\nschema = \"raw_%s\"\ntables = [", d, d)
		for i, t := range tables {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(t))
		}
		b.WriteString("]\n\n")
	}
	b.WriteString(`[seeds]
schema = "raw"

[vars]
source_system = "synth"
min_amount    = 0

[models]
materialized = "view"

[models."staging/*"]
tags = ["staging"]

[models."intermediate/*"]
tags = ["intermediate"]

[models."marts/*"]
materialized = "table"
tags = ["marts"]

[run]
threads = 4
`)
	return b.String()
}

type macroFile struct{ name, text string }

var macroFiles = []macroFile{
	{"money.sql", `{# Amounts are stored in cents so sums are exact on every engine. #}
{% macro cents(column) %}CAST(round({{ column }} * 100) AS BIGINT){% endmacro %}
`},
	{"math.sql", `{# Division that yields NULL instead of failing on a zero denominator. #}
{% macro safe_divide(numerator, denominator) -%}
CASE WHEN {{ denominator }} = 0 THEN NULL ELSE {{ numerator }} / {{ denominator }} END
{%- endmacro %}

{# Adds columns, treating NULL as 0. #}
{% macro sum_columns(columns) -%}
{% for c in columns %}coalesce({{ c }}, 0){% if not loop.last %} + {% endif %}{% endfor %}
{%- endmacro %}
`},
	{"status.sql", `{% macro status_bucket(column) -%}
CASE
    WHEN {{ column }} IN ('paid', 'shipped') THEN 'closed'
    WHEN {{ column }} = 'void' THEN 'cancelled'
    ELSE 'open'
  END
{%- endmacro %}
`},
	{"window.sql", `{# The unit's half-open window on a date column. #}
{% macro in_window(column) %}{{ column }} >= {{ start }} AND {{ column }} < {{ end }}{% endmacro %}
`},
}

func (g *gen) tests() []string {
	var out []string
	// The last three non-ephemeral models (marts, mostly).
	for i := len(g.models) - 1; i >= 0 && len(out) < 3; i-- {
		m := g.models[i]
		if m.mat == "ephemeral" {
			continue
		}
		out = append(out, fmt.Sprintf("-- Amounts are never negative.\nSELECT id, amount\nFROM {{ ref(%q) }}\nWHERE amount < 0\n", m.name))
	}
	return out
}

// Stats counts what a generated project holds, for reports and tests.
type Stats struct {
	Models, Views, Tables, Incremental, Ephemeral int
	Partitioned, Merge, Watermark                 int
	UseMacros, Refs                               int
}

// Describe plans a project without writing it and returns its counts.
func Describe(n int, seed int64) Stats {
	g := &gen{rng: rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15)), n: n}
	g.plan()
	var s Stats
	for _, m := range g.models {
		s.Models++
		switch m.mat {
		case "view":
			s.Views++
		case "table":
			s.Tables++
		case "incremental":
			s.Incremental++
		case "ephemeral":
			s.Ephemeral++
		}
		if m.partitioned {
			s.Partitioned++
		}
		if m.strategy == "merge" {
			s.Merge++
		}
		if m.watermark {
			s.Watermark++
		}
		if m.macros {
			s.UseMacros++
		}
		s.Refs += len(m.refs)
	}
	return s
}
