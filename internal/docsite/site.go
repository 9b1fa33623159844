// Package docsite builds the static documentation site of a project
// (`idemc docs`): a page per model with its SQL, settings, checks and
// columns, the model graph, column lineage from the SQL analysis, a
// partition × status heatmap per partitioned model from the audit table,
// and the recent runs. The site is plain files that work from file://: the
// data goes into data.js (browsers refuse fetch() on file://), the pages
// and assets are embedded in the binary, and nothing is loaded from a
// network.
package docsite

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// SchemaVersion is the version of data.js's object; it changes when a
// field changes meaning.
const SchemaVersion = 1

// Site is everything the pages show, written to data.js as JSON.
type Site struct {
	SchemaVersion int    `json:"schema_version"`
	Project       string `json:"project"`
	Target        string `json:"target"`
	Engine        string `json:"engine"`
	GeneratedAt   string `json:"generated_at"` // RFC 3339 UTC
	AsOf          string `json:"as_of"`        // the heatmap's end (exclusive)
	// Warehouse is "" when the target was read, else why it was not: the
	// site then shows no types, no partition status and no runs rather
	// than guessing them.
	Warehouse string  `json:"warehouse_error,omitempty"`
	Nodes     []*Node `json:"nodes"`
	Edges     []Edge  `json:"edges"`
	Width     float64 `json:"width"` // the graph's layout size
	Height    float64 `json:"height"`
	Runs      []Run   `json:"runs"`
}

// Node is one model or seed.
type Node struct {
	Name         string    `json:"name"`
	Kind         string    `json:"kind"` // model or seed
	Materialized string    `json:"materialized,omitempty"`
	Strategy     string    `json:"strategy,omitempty"`
	Path         string    `json:"path"`
	Relation     string    `json:"relation"` // quoted for the target
	Description  string    `json:"description,omitempty"`
	Tags         []string  `json:"tags,omitempty"`
	Settings     []Setting `json:"settings,omitempty"`
	Checks       []Check   `json:"checks,omitempty"`
	Source       string    `json:"source,omitempty"` // the model file as written
	SQL          string    `json:"sql,omitempty"`    // the SELECT rendered for the target
	Columns      []*Column `json:"columns"`
	// ColumnsUnknown says why the analysis could not list the columns (a
	// wildcard, or SQL the parser cannot read); "" when it could.
	ColumnsUnknown string   `json:"columns_unknown,omitempty"`
	Exists         *bool    `json:"exists,omitempty"` // in the warehouse; nil when not read
	Upstream       []string `json:"upstream"`
	Downstream     []string `json:"downstream"`
	Partitions     *Heatmap `json:"partitions,omitempty"` // partitioned models, when the audit was read
	Latest         *Cell    `json:"latest,omitempty"`     // an unpartitioned unit's latest audit row
	X              float64  `json:"x"`                    // the layout's top-left corner
	Y              float64  `json:"y"`
	W              float64  `json:"w"`
	Layer          int      `json:"layer"`
}

// Setting is one model setting as written.
type Setting struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// Check is one declared check.
type Check struct {
	Name     string `json:"name"`
	Severity string `json:"severity"`
}

// Column is one column of a model or seed.
type Column struct {
	Name string `json:"name"`
	Type string `json:"type,omitempty"` // from the warehouse
	// From are the inputs the analysis found; Unknown why some input is
	// not known (then From is what is known, and the page says unknown).
	From    []ColumnRef `json:"from,omitempty"`
	Unknown string      `json:"unknown,omitempty"`
	UsedBy  []ColumnRef `json:"used_by,omitempty"`
}

// ColumnRef is a column of a node, or of a table outside the project
// (Node "" and Table its name).
type ColumnRef struct {
	Node   string `json:"node,omitempty"`
	Table  string `json:"table,omitempty"`
	Column string `json:"column"`
}

// Edge is one graph edge with its drawn path.
type Edge struct {
	From string `json:"from"`
	To   string `json:"to"`
	Path string `json:"path"` // SVG path data
}

// Run is one row of idemc_runs.
type Run struct {
	RunID     string `json:"run_id"`
	Command   string `json:"command"`
	Target    string `json:"target"`
	AsOf      string `json:"as_of"`
	Started   string `json:"started_at"`
	Ended     string `json:"ended_at,omitempty"`
	Outcome   string `json:"outcome"`
	Succeeded int    `json:"succeeded"`
	Failed    int    `json:"failed"`
	Skipped   int    `json:"skipped"`
}

// fromPlan fills the nodes, edges and lineage that need no connection.
func fromPlan(p *project.Project, pl *plan.Plan, d adapters.Dialect, asOf time.Time) *Site {
	s := &Site{SchemaVersion: SchemaVersion, Project: pl.Project, Target: pl.Target, Engine: pl.Engine,
		GeneratedAt: time.Now().UTC().Format(time.RFC3339), AsOf: asOf.UTC().Format(time.RFC3339), Runs: []Run{}}
	models := map[string]*project.Model{}
	for _, m := range p.Models {
		models[m.Name] = m
	}
	notParsed := map[string]string{}
	for _, f := range pl.Findings {
		if f.Rule == "L000" {
			notParsed[f.Path] = f.Message
		}
	}
	for _, name := range pl.Graph.Nodes() {
		pn := pl.Nodes[name]
		n := &Node{Name: name, Kind: "model", Materialized: pn.Materialized, Strategy: pn.Strategy, Path: pn.Path,
			Relation: d.Qualify(pn.Relation), Description: pn.Description, Tags: pn.Tags, SQL: pn.SQL,
			Upstream: nonNil(pl.Graph.Upstream(name)), Downstream: nonNil(pl.Graph.Downstream(name)), Columns: []*Column{}}
		if pn.Seed {
			n.Kind = "seed"
		}
		if m := models[name]; m != nil {
			n.Source = m.Body // the header blanked, if the file cannot be read again
			if b, err := os.ReadFile(filepath.Join(p.Root, filepath.FromSlash(m.Path))); err == nil {
				n.Source = string(b)
			}
			n.Settings = settingsOf(m)
		}
		for _, c := range pn.Checks {
			n.Checks = append(n.Checks, Check{Name: c.Name, Severity: c.Severity})
		}
		switch {
		case pn.Seed:
		case pn.Columns == nil && notParsed[pn.Path] != "":
			n.ColumnsUnknown = "not analysed: " + notParsed[pn.Path]
		case pn.Columns == nil:
			n.ColumnsUnknown = "the SELECT list has a wildcard (*): its columns are not known to the analysis"
		}
		for i, c := range pn.Columns {
			col := &Column{Name: c}
			if c == "" {
				col.Name = fmt.Sprintf("(column %d)", i+1)
			}
			n.Columns = append(n.Columns, col)
		}
		s.Nodes = append(s.Nodes, n)
	}
	return s
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// settingsOf lists a model's settings that are set, in the header's
// order of DESIGN §4.
func settingsOf(m *project.Model) []Setting {
	c := m.Config
	var out []Setting
	add := func(k, v string) {
		if v != "" && v != "[]" && v != "0" {
			out = append(out, Setting{k, v})
		}
	}
	list := func(l []string) string {
		if len(l) == 0 {
			return ""
		}
		return "[" + strings.Join(quoteAll(l), ", ") + "]"
	}
	add("materialized", c.Materialized)
	add("strategy", c.Strategy)
	add("partition_by", c.PartitionBy)
	add("granularity", m.Granularity)
	add("start", c.Start)
	add("lookback", fmt.Sprint(c.Lookback))
	add("unique_key", list(c.UniqueKey))
	if w := c.Watermark; w != nil {
		add("watermark", fmt.Sprintf("column %s, kind %s, lag %s, overlap %s", w.Column, or(w.Kind, "timestamp"), or(w.Lag, "0"), or(w.Overlap, "0")))
	}
	add("merge_update_columns", list(c.MergeUpdateColumns))
	add("merge_exclude_columns", list(c.MergeExcludeColumns))
	add("on_schema_change", c.OnSchemaChange)
	add("schema", c.Schema)
	add("alias", c.Alias)
	if c.AllowAppend {
		add("allow_append", "true")
	}
	add("allow_nondeterministic", list(c.AllowNondeterministic))
	if c.StrictParse {
		add("strict_parse", "true")
	}
	return out
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func quoteAll(l []string) []string {
	out := make([]string, len(l))
	for i, s := range l {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}

// byName finds nodes by name.
func (s *Site) byName() map[string]*Node {
	m := make(map[string]*Node, len(s.Nodes))
	for _, n := range s.Nodes {
		m[n.Name] = n
	}
	return m
}

func sortRefs(refs []ColumnRef) {
	sort.Slice(refs, func(i, j int) bool {
		a, b := refs[i], refs[j]
		if a.Node+a.Table != b.Node+b.Table {
			return a.Node+a.Table < b.Node+b.Table
		}
		return a.Column < b.Column
	})
}
