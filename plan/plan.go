package plan

import (
	"fmt"
	"io"
	"sort"
	"strconv"
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
	Name string
	Path string
	Seed bool
	// HTTP marks a seed node loaded from an [http.NAME] source (Seed is
	// set too: it is a raw relation loaded before what reads it).
	HTTP     bool
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
	HTTP      bool // an HTTP source fetch (Seed is set too); SeedPath is its redacted URL
	// Inputs is the unit's input fingerprint and DataVersion the version
	// its write leaves (DESIGN §9); both go into its audit row.
	Inputs, DataVersion string
	// Reason says why the unit runs, when the plan was asked to explain
	// (idemc plan): "never succeeded", "upstream data changed (dim_users)", …
	Reason string
	// Key hashes everything the unit's file under target/compiled is made
	// of (its id, kind and write, the target, the idemc build), when the
	// compile was asked (Options.Reuse); "" otherwise.
	Key string
	// Reused, when not 0, is the number of steps of a recipe the compile
	// did not build again, or did not keep: the unit's file under
	// target/compiled holds the recipe of Key (idemc compile), and Steps is
	// nil.
	Reused int
}

// StepCount is how many steps the unit's recipe has, built or reused.
func (u *Unit) StepCount() int {
	if u.Steps == nil {
		return u.Reused
	}
	return len(u.Steps)
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

// Kind names what the unit does: "seed", or its materialization and
// strategy ("incremental merge").
func (u *Unit) Kind() string {
	if u.HTTP {
		return "http"
	}
	if u.Seed {
		return "seed"
	}
	if u.Write.Strategy != "" {
		return u.Write.Materialized + " " + u.Write.Strategy
	}
	return u.Write.Materialized
}

// PartitionLabel is the unit's partition key, "-" for an unpartitioned one.
func (u *Unit) PartitionLabel() string {
	if u.Partition == "" {
		return "-"
	}
	return u.Partition
}

// TextWriter is where FormatUnit writes: a strings.Builder, or a
// bytes.Buffer reused from unit to unit (a compile formats every unit's
// file to hash it; a fresh buffer each time was 50 MB of garbage at 10,000
// units, most of a fresh compile's peak memory growth).
type TextWriter interface {
	io.Writer
	io.StringWriter
	io.ByteWriter
}

// FormatUnit renders one unit.
func FormatUnit(b TextWriter, u *Unit, withSQL bool) {
	fmt.Fprintf(b, "\n-- unit %s  partition %s  (%s)\n", u.Model, u.PartitionLabel(), u.Kind())
	if !withSQL {
		return
	}
	if u.HTTP {
		fmt.Fprintf(b, "-- fetch %s page by page; merge each page and its idemc_http row in one transaction\n", u.SeedPath)
		return
	}
	if u.Seed {
		fmt.Fprintf(b, "-- load %s in bulk, replacing the table\n", u.SeedPath)
		return
	}
	var labels map[string]string
	for i, s := range u.Steps {
		c := ""
		if s.Comment != "" {
			c = ": " + s.Comment
		}
		// Written piece by piece, not by fmt: every compile formats each
		// unit's file (to hash it against target/compiled's index).
		b.WriteString("-- " + strconv.Itoa(i+1) + ". " + string(s.Purpose) + c + "\n")
		if n := stepNotes(&s, labels); n != "" {
			fmt.Fprintf(b, "--    %s\n", n)
		}
		if s.Job != nil && s.Job.Labels != nil {
			labels = s.Job.Labels
		}
		if s.Count != "" {
			// Sent as a query only when the write did not report its rows.
			fmt.Fprintf(b, "-- count: %s\n", strings.Join(strings.Fields(s.Count), " "))
		}
		if s.NotSent != "" {
			b.WriteString("--    not sent: " + s.NotSent + "\n-- ")
			b.WriteString(strings.ReplaceAll(s.SQL, "\n", "\n-- "))
			b.WriteString(";\n")
			continue
		}
		b.WriteString(s.SQL)
		b.WriteString(terminator(s.SQL))
		b.WriteByte('\n')
	}
}

// Terminated is a statement followed by its ";": on a line of its own when
// the statement's last line has a "--" (a model that ends in a line
// comment would swallow it, and the statement after it).
func Terminated(sql string) string { return sql + terminator(sql) }

// terminator is what Terminated appends to sql.
func terminator(sql string) string {
	last := sql[strings.LastIndexByte(sql, '\n')+1:]
	if strings.Contains(last, "--") {
		return "\n;"
	}
	return ";"
}

// stepNotes is what a step carries besides its SQL, for the printed plan:
// its lock, its job (labels only where they change) and whether it is
// deferred to a script's end.
func stepNotes(s *Step, labels map[string]string) string {
	var notes []string
	if l := s.Lock; l != nil {
		n := "lock " + l.Key
		if l.Timeout > 0 {
			n += ", waiting at most " + l.Timeout.String()
		}
		if l.Release != "" {
			n += ", released by " + l.Release
		}
		if c := l.Claim; c != nil {
			n += "; claimed for run " + c.RunID + ", holder read by " + c.Holder + ", a dead holder's taken over by " + c.Takeover
		}
		notes = append(notes, n)
	}
	if j := s.Job; j != nil {
		if j.Kind != "" {
			notes = append(notes, "job "+j.Kind)
		}
		if j.Destination != nil {
			notes = append(notes, fmt.Sprintf("into %s.%s (%s)", j.Destination.Schema, j.Destination.Name, j.Disposition))
		}
		if j.Labels != nil && !sameLabels(j.Labels, labels) {
			keys := make([]string, 0, len(j.Labels))
			for k := range j.Labels {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for i, k := range keys {
				keys[i] = k + "=" + j.Labels[k]
			}
			notes = append(notes, "labels "+strings.Join(keys, ","))
		}
	}
	if s.Counts {
		notes = append(notes, "answers with the rows it wrote")
	}
	if s.Deferred {
		notes = append(notes, "deferred to the script's commit")
	}
	return strings.Join(notes, "; ")
}

func sameLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
