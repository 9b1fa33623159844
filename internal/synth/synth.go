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

// modelFile writes one model: the header, then the SELECT.
func (g *gen) modelFile(b *strings.Builder, m *model) {
	g.header(b, m)
	switch m.shape {
	case shapeStaging:
		g.staging(b, m)
	case shapeJoin:
		g.join(b, m)
	case shapeAggregate:
		g.aggregate(b, m)
	case shapeDedupe:
		g.dedupe(b, m)
	case shapeUnion:
		g.union(b, m)
	case shapeStar:
		g.star(b, m)
	}
}

func (g *gen) header(b *strings.Builder, m *model) {
	folderDefault := "view"
	if m.layer == layers-1 {
		folderDefault = "table"
	}
	var h strings.Builder
	kv := func(k, v string) { fmt.Fprintf(&h, "%-12s = %s\n", k, v) }
	if m.mat != folderDefault {
		kv("materialized", strconv.Quote(m.mat))
	}
	if m.mat == "incremental" {
		kv("strategy", strconv.Quote(m.strategy))
		if m.partitioned {
			kv("partition_by", `"event_date"`)
			kv("granularity", `"day"`)
			kv("start", strconv.Quote(m.start))
			if m.lookback > 0 {
				kv("lookback", strconv.Itoa(m.lookback))
			}
		} else {
			kv("unique_key", `"id"`)
		}
		if m.watermark {
			kv("watermark", `{ column = "updated_at", lag = "5m", overlap = "1h" }`)
		}
	}
	if m.tags {
		tags := []string{strconv.Quote(m.domain)}
		if m.partitioned {
			tags = append(tags, `"daily"`)
		}
		kv("tags", "["+strings.Join(tags, ", ")+"]")
	}
	if m.mat == "incremental" || m.checks {
		h.WriteString("\n[checks]\n")
		ck := func(k, v string) { fmt.Fprintf(&h, "%-17s = %s\n", k, v) }
		ck("unique", `["id"]`)
		if m.partitioned {
			ck("not_null", `["id", "event_date"]`)
		} else {
			ck("not_null", `["id"]`)
		}
		if m.mat == "incremental" {
			ck("min_rows", `{ value = 1, severity = "warn" }`)
			ck("expect", `["sum(amount) >= 0"]`)
		} else {
			ck("min_rows", "1")
		}
		if g.chance(0.3) {
			ck("accepted_values", `{ status = ["new", "paid", "shipped", "void"] }`)
		}
		if up := g.checkable(m); up != nil && g.chance(0.3) {
			ck("relationships", fmt.Sprintf(`{ customer_id = "%s.customer_id" }`, up.name))
		}
		if m.shape == shapeStaging && m.partitioned && g.chance(0.5) {
			ck("row_count_matches", fmt.Sprintf(`{ source = "raw_%s.%s", column = "event_date" }`, m.srcDomain, m.srcTable))
		}
	}
	if h.Len() > 0 {
		b.WriteString("/* idemc\n")
		b.WriteString(h.String())
		b.WriteString("*/\n")
	}
}

// checkable is an upstream model a relationships check can read (not ephemeral).
func (g *gen) checkable(m *model) *model {
	for _, r := range m.refs {
		if r.mat != "ephemeral" {
			return r
		}
	}
	return nil
}

// filter returns the WHERE conditions that bound what an incremental model
// reads, for column prefix p ("" or "t0.").
func (g *gen) filter(m *model, p string) string {
	switch {
	case m.partitioned && m.macros:
		return "{{ in_window(\"" + p + "event_date\") }}"
	case m.partitioned:
		return p + "event_date >= {{ start }} AND " + p + "event_date < {{ end }}"
	case m.watermark:
		return p + "updated_at >= {{ watermark_start }} AND " + p + "updated_at < {{ watermark_end }}"
	case m.mat == "incremental":
		return "{% if is_incremental() %}" + p + "updated_at > (SELECT max(updated_at) FROM {{ this }}){% else %}1 = 1{% endif %}"
	}
	return ""
}

// extras are macro-built columns (about 30% of the models use macros).
func (g *gen) extras(m *model, p string, agg bool, second string) []string {
	if !m.macros {
		return nil
	}
	wrap := func(s, fn string) string {
		if agg {
			return fn + "(" + s + ")"
		}
		return s
	}
	var out []string
	out = append(out, wrap(`{{ cents("`+p+`amount") }}`, "sum")+" AS amount_cents")
	switch m.idx % 3 {
	case 0:
		out = append(out, wrap(`{{ status_bucket("`+p+`status") }}`, "max")+" AS status_group")
	case 1:
		if second != "" {
			out = append(out, wrap(`{{ safe_divide("`+p+`amount", "`+second+`.amount") }}`, "max")+" AS amount_ratio")
			out = append(out, wrap(`{{ sum_columns(["`+p+`amount", "`+second+`.amount"]) }}`, "sum")+" AS amount_total")
		} else {
			out = append(out, wrap(`{{ safe_divide("`+p+`amount", "100") }}`, "max")+" AS amount_hundreds")
		}
	}
	return out
}

func writeColumns(b *strings.Builder, cols []string, indent string) {
	for i, c := range cols {
		b.WriteString(indent)
		b.WriteString(c)
		if i < len(cols)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
}

func (g *gen) staging(b *strings.Builder, m *model) {
	fmt.Fprintf(b, "-- Staging for raw_%s.%s: typed columns, test rows removed.\n", m.srcDomain, m.srcTable)
	b.WriteString("SELECT\n")
	cols := []string{
		"id",
		"event_date",
		"customer_id",
		"CAST(amount AS DECIMAL(18, 2)) AS amount",
		"lower(status) AS status",
		"updated_at",
	}
	if m.useVar {
		cols = append(cols, `{{ var("source_system") }} AS source_system`)
	}
	cols = append(cols, g.extras(m, "", false, "")...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ source(\"raw_%s\", %q) }}\n", m.srcDomain, m.srcTable)
	b.WriteString("WHERE status <> 'test'\n")
	if f := g.filter(m, ""); f != "" {
		b.WriteString("  AND " + f + "\n")
	}
}

func alias(i int) string { return "t" + strconv.Itoa(i) }

func (g *gen) join(b *strings.Builder, m *model) {
	if len(m.refs) > 1 {
		fmt.Fprintf(b, "-- %s, enriched from %d more upstream models.\n", m.refs[0].name, len(m.refs)-1)
	} else {
		fmt.Fprintf(b, "-- %s, for the %s domain.\n", m.refs[0].name, m.domain)
	}
	b.WriteString("SELECT\n")
	cols := []string{"t0.id", "t0.event_date", "t0.customer_id", "t0.amount", "t0.status", "t0.updated_at"}
	if len(m.refs) > 1 {
		amount := "t0.amount"
		for i := 1; i < len(m.refs); i++ {
			amount += " + coalesce(" + alias(i) + ".amount, 0)"
		}
		cols[3] = amount + " AS amount"
		cols[5] = "greatest(t0.updated_at, coalesce(t1.updated_at, t0.updated_at)) AS updated_at"
	}
	if m.seed != "" {
		cols = append(cols, "sc.status_group AS seed_status_group")
	}
	second := ""
	if len(m.refs) > 1 {
		second = "t1"
	}
	cols = append(cols, g.extras(m, "t0.", false, second)...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	for i := 1; i < len(m.refs); i++ {
		a := alias(i)
		fmt.Fprintf(b, "LEFT JOIN {{ ref(%q) }} AS %s\n  ON %s.id = t0.id AND %s.event_date = t0.event_date\n", m.refs[i].name, a, a, a)
	}
	if m.seed != "" {
		fmt.Fprintf(b, "LEFT JOIN {{ ref(%q) }} AS sc ON sc.status = t0.status\n", m.seed)
	}
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("WHERE " + f + "\n")
	}
}

func (g *gen) aggregate(b *strings.Builder, m *model) {
	fmt.Fprintf(b, "-- Daily totals per customer.\n")
	b.WriteString("SELECT\n")
	amount := "sum(t0.amount)"
	if len(m.refs) > 1 {
		amount = "sum(t0.amount + coalesce(t1.amount, 0))"
	}
	cols := []string{
		`{{ surrogate_key(["t0.customer_id", "t0.event_date"]) }} AS id`,
		"t0.event_date",
		"t0.customer_id",
		amount + " AS amount",
		"max(t0.status) AS status",
		"max(t0.updated_at) AS updated_at",
		"count(*) AS row_count",
	}
	cols = append(cols, g.extras(m, "t0.", true, "")...)
	writeColumns(b, cols, "  ")
	fmt.Fprintf(b, "FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	if len(m.refs) > 1 {
		fmt.Fprintf(b, "JOIN {{ ref(%q) }} AS t1 ON t1.id = t0.id\n", m.refs[1].name)
	}
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("WHERE " + f + "\n")
	}
	b.WriteString("GROUP BY t0.customer_id, t0.event_date\n")
}

func (g *gen) dedupe(b *strings.Builder, m *model) {
	b.WriteString("-- The latest version of every row.\n")
	b.WriteString("WITH ranked AS (\n  SELECT\n")
	cols := []string{"t0.id", "t0.event_date", "t0.customer_id", "t0.amount", "t0.status", "t0.updated_at"}
	cols = append(cols, "row_number() OVER (PARTITION BY t0.id ORDER BY t0.updated_at DESC, t0.amount) AS version_rank")
	writeColumns(b, cols, "    ")
	fmt.Fprintf(b, "  FROM {{ ref(%q) }} AS t0\n", m.refs[0].name)
	if f := g.filter(m, "t0."); f != "" {
		b.WriteString("  WHERE " + f + "\n")
	}
	b.WriteString(")\nSELECT\n")
	out := []string{"id", "event_date", "customer_id", "amount", "status", "updated_at"}
	out = append(out, g.extras(m, "", false, "")...)
	writeColumns(b, out, "  ")
	b.WriteString("FROM ranked\nWHERE version_rank = 1\n")
}

func (g *gen) union(b *strings.Builder, m *model) {
	b.WriteString("-- Rows of both upstream models.\n")
	f := g.filter(m, "")
	for i, r := range m.refs {
		if i > 0 {
			b.WriteString("UNION ALL\n")
		}
		fmt.Fprintf(b, "SELECT id, event_date, customer_id, amount, status, updated_at\nFROM {{ ref(%q) }}\n", r.name)
		if f != "" {
			b.WriteString("WHERE " + f + "\n")
		}
	}
}

func (g *gen) star(b *strings.Builder, m *model) {
	b.WriteString("-- Voided rows removed.\n")
	fmt.Fprintf(b, "SELECT *\nFROM {{ ref(%q) }}\nWHERE status <> 'void'\n", m.refs[0].name)
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
