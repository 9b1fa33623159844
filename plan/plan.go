package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/diag"
)

// Plan is the compiled, selected work of one invocation: plain data that can
// be printed, compared with a golden file and only then run.
type Plan struct {
	Project string
	Target  string
	Engine  string
	AsOf    time.Time
	// Nodes are every model and seed of the project, by name.
	Nodes map[string]*Node
	// Graph is the model graph (every model and seed).
	Graph *dag.Graph
	// Selected are the selected models and seeds in dependency order.
	Selected []string
	// Units are the selected models' stale units in dependency order.
	Units []*Unit
	// UpToDate lists selected units that need no run (capped at 10,000
	// partitions by name; UpToDateCount counts them all).
	UpToDate      []string
	UpToDateCount int
	// Units' dependencies, by unit ID.
	UnitGraph *dag.Graph
	// Findings are the lint findings of every model, sorted by position.
	Findings []diag.Finding
	// Tests are the singular tests (tests/*.sql) rendered for the target.
	Tests []*SingularTest
}

// SingularTest is a SELECT returning failing rows.
type SingularTest struct {
	Path string
	SQL  string
	Refs []string
}

// Node is one model or seed of the project after compilation.
type Node struct {
	Name     string
	Path     string
	Seed     bool
	Relation Relation
	// Model settings (zero for seeds).
	Materialized   string
	Strategy       string
	Tags           []string
	PartitionBy    string
	Granularity    string
	OnSchemaChange string
	CodeHash       string
	// Checks declared by the model, for idemc test.
	Checks []*Check
	// SQL is the model's SELECT for the target with the window of its
	// first planned unit (or the latest partition), for display.
	SQL string
	// Columns found by the analysis (nil if not parsed or SELECT *).
	Columns []string
	// Lineage is each output column's inputs as the analysis reads them
	// (nil when Columns is nil or Options.Lineage was off): what the docs
	// site's column lineage shows.
	Lineage []ColumnLineage
	// Description is the model's description setting, for the docs site.
	Description string
}

// Unit is one model × partition of work.
type Unit struct {
	ID        string // "model" or "model/2026-07-30"
	Model     string
	Partition string // canonical key; "" for an unpartitioned model
	Write     *Write
	Steps     []Step
	CodeHash  string
	Seed      bool // a seed load (the runner uses the engine's bulk loader)
	SeedPath  string
	// Inputs is the unit's input fingerprint and DataVersion the version
	// its write leaves (DESIGN §9); both go into its audit row.
	Inputs, DataVersion string
}

// UnitID names a unit.
func UnitID(model, partition string) string {
	if partition == "" {
		return model
	}
	return model + "/" + partition
}

// Format renders the plan as text: one block per unit with each step's
// purpose, comment and SQL. It is what `idemc compile --sql` prints and what
// golden tests compare.
func (p *Plan) Format(withSQL bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- plan: project %s, target %s (%s), as_of %s, %d units\n", p.Project, p.Target, p.Engine, p.AsOf.UTC().Format(time.RFC3339), len(p.Units))
	for _, u := range p.Units {
		FormatUnit(&b, u, withSQL)
	}
	return b.String()
}

// FormatUnit renders one unit.
func FormatUnit(b *strings.Builder, u *Unit, withSQL bool) {
	kind := "seed"
	if !u.Seed {
		kind = u.Write.Materialized
		if u.Write.Strategy != "" {
			kind += " " + u.Write.Strategy
		}
	}
	part := u.Partition
	if part == "" {
		part = "-"
	}
	fmt.Fprintf(b, "\n-- unit %s  partition %s  (%s)\n", u.Model, part, kind)
	if !withSQL {
		return
	}
	if u.Seed {
		fmt.Fprintf(b, "-- load %s in bulk, replacing the table\n", u.SeedPath)
		return
	}
	for i, s := range u.Steps {
		c := ""
		if s.Comment != "" {
			c = ": " + s.Comment
		}
		fmt.Fprintf(b, "-- %d. %s%s\n%s;\n", i+1, s.Purpose, c, s.SQL)
	}
}
