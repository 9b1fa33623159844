package statefuzz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// AsOf is the logical time of every build of every sequence: fixed, so that
// the oracle and idemc read the same windows (partitions 2026-07-01 to
// 2026-07-05).
const AsOf = "2026-07-06T00:00:00Z"

// Project is a generated project as data. Operations change a copy of it;
// Files renders it for one warehouse. Keeping it structured (instead of
// editing text) makes every operation replayable on any earlier state,
// which the shrinker needs.
type Project struct {
	Seeds  []*Seed
	Models []*Model
	// SeedsAlt moves every seed into the second seed schema ([seeds] schema).
	SeedsAlt bool
	// Lineage turns lineage_columns on for every model ([models]): the
	// rows then carry their run's id, which no rebuild shares, so the
	// comparison reads the two columns' types but not their values.
	Lineage bool
}

// Seed is one CSV file. Every seed has the same columns, so that any model
// can read any seed: id (unique integer), day (date), k (text, empty =
// NULL), amount (integer, or decimal when Decimal), cat (text), and an
// optional note column.
type Seed struct {
	Name    string
	Rows    []SeedRow
	Decimal bool // amount written as 12.5: the column's inferred type changes
	Note    bool // an extra text column no model reads
}

// SeedRow is one CSV row.
type SeedRow struct {
	ID     int
	Day    string
	K      string
	Amount int
	Cat    string
}

// Model kinds.
const (
	KindView            = "view"
	KindTable           = "table"
	KindEphemeral       = "ephemeral"
	KindDeleteInsert    = "delete_insert"    // incremental, partitioned by day
	KindInsertOverwrite = "insert_overwrite" // incremental, partitioned by day
	KindMerge           = "merge"            // incremental, unique_key, unpartitioned
)

// Model shapes. "pass" and "join" keep the common row shape (id, day, k,
// amount, cat) so that anything can read them; "agg" does not, so nothing
// reads an agg model.
const (
	ShapePass = "pass"
	ShapeJoin = "join"
	ShapeAgg  = "agg"
)

// Model is one SQL model.
type Model struct {
	Name      string
	Kind      string
	Shape     string
	Refs      []string // one upstream (pass, agg) or two (join): seeds or models
	Bump      int      // added to amount: "edit a model's SQL"
	MinAmount int      // rows with a smaller amount are filtered out
	Extra     string   // "", "int", "dec" or "text": the c_x column and its type
	Key       []string // merge: unique_key; ["k", "id"] has NULL key parts
	Start     string   // partitioned: first partition
	Lookback  int
	Checks    Checks
	Schema    bool // written into the alternative model schema
	Alias     bool // written under the name <name>_a
	// IncFilter adds dbt's `{% if is_incremental() %}` filter on
	// {{ this }} to the WHERE clause: the render then differs between a
	// first build and a build on top of the relation. The filter keeps
	// every row (id > min(id) - 1000 - Bump), so rebuild equivalence
	// holds; what it tests is that the code hash, and so the plan, does
	// not depend on the warehouse.
	IncFilter bool
}

// Checks are the declared checks of a model (never on views or ephemerals,
// see the package doc).
type Checks struct {
	NotNull  bool     // not_null = ["id"]
	Unique   bool     // unique = ["id"]
	Accepted []string // accepted_values = { cat = [...] }
	MinRows  int      // min_rows = N (tables only)
	Rel      string   // relationships = { id = "<Rel>.id" }
	Failing  bool     // min_rows = 100000 as well: fails every unit
}

// IncFilters reports whether some model has an is_incremental() filter.
func (p *Project) IncFilters() bool {
	for _, m := range p.Models {
		if m.IncFilter {
			return true
		}
	}
	return false
}

// Partitioned reports whether the model is an incremental model partitioned by day.
func (m *Model) Partitioned() bool {
	return m.Kind == KindDeleteInsert || m.Kind == KindInsertOverwrite
}

// Relation reports whether the model has a relation of its own.
func (m *Model) Relation() bool { return m.Kind != KindEphemeral }

// Clone returns a deep copy.
func (p *Project) Clone() *Project {
	q := &Project{SeedsAlt: p.SeedsAlt, Lineage: p.Lineage}
	for _, s := range p.Seeds {
		c := *s
		c.Rows = append([]SeedRow(nil), s.Rows...)
		q.Seeds = append(q.Seeds, &c)
	}
	for _, m := range p.Models {
		c := *m
		c.Refs = append([]string(nil), m.Refs...)
		c.Key = append([]string(nil), m.Key...)
		c.Checks.Accepted = append([]string(nil), m.Checks.Accepted...)
		q.Models = append(q.Models, &c)
	}
	return q
}

// Model returns the model of that name, or nil.
func (p *Project) Model(name string) *Model {
	for _, m := range p.Models {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// Seed returns the seed of that name, or nil.
func (p *Project) Seed(name string) *Seed {
	for _, s := range p.Seeds {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// readers returns the models that ref or check against name.
func (p *Project) readers(name string) []*Model {
	var out []*Model
	for _, m := range p.Models {
		if m.Checks.Rel == name {
			out = append(out, m)
			continue
		}
		for _, r := range m.Refs {
			if r == name {
				out = append(out, m)
				break
			}
		}
	}
	return out
}

// Schemas are the physical schema names of one warehouse; every warehouse
// (idemc's and each oracle's) gets its own prefix.
type Schemas struct{ Prefix string }

func (s Schemas) Target() string   { return s.Prefix }
func (s Schemas) Seeds() string    { return s.Prefix + "_raw" }
func (s Schemas) SeedsAlt() string { return s.Prefix + "_raw2" }
func (s Schemas) Alt() string      { return s.Prefix + "_alt" }

// All lists every schema the project can write to.
func (s Schemas) All() []string {
	return []string{s.Target(), s.Seeds(), s.SeedsAlt(), s.Alt()}
}

// Location is where a relation lives in one warehouse.
type Location struct{ Schema, Name string }

// Locations maps every seed and every model that has a relation to where it
// is written, by node name.
func (p *Project) Locations(s Schemas) map[string]Location {
	out := map[string]Location{}
	for _, sd := range p.Seeds {
		sch := s.Seeds()
		if p.SeedsAlt {
			sch = s.SeedsAlt()
		}
		out[sd.Name] = Location{sch, sd.Name}
	}
	for _, m := range p.Models {
		if !m.Relation() {
			continue
		}
		l := Location{s.Target(), m.Name}
		if m.Schema {
			l.Schema = s.Alt()
		}
		if m.Alias {
			l.Name = m.Name + "_a"
		}
		out[m.Name] = l
	}
	return out
}

// Nodes lists the names of every seed and model with a relation, sorted.
func (p *Project) Nodes() []string {
	var out []string
	for name := range p.Locations(Schemas{}) {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// csv renders a seed file.
func (s *Seed) csv() string {
	var b strings.Builder
	b.WriteString("id,day,k,amount,cat")
	if s.Note {
		b.WriteString(",note")
	}
	b.WriteString("\n")
	for _, r := range s.Rows {
		amount := strconv.Itoa(r.Amount)
		if s.Decimal {
			amount += ".5"
		}
		fmt.Fprintf(&b, "%d,%s,%s,%s,%s", r.ID, r.Day, r.K, amount, r.Cat)
		if s.Note {
			fmt.Fprintf(&b, ",n%d", r.ID%3)
		}
		b.WriteString("\n")
	}
	return b.String()
}
