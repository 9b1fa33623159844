package statefuzz

import (
	"fmt"
	"math/rand/v2"
)

// maxDepth bounds ref() chains: a model reads nodes at most maxDepth-1 deep.
const maxDepth = 4

// days are the values seed rows take: 2026-06-30 and 2026-07-06 fall outside
// every partition window (start 2026-07-01 or -02, as-of 2026-07-06).
var days = []string{"2026-06-30", "2026-07-01", "2026-07-02", "2026-07-03", "2026-07-04", "2026-07-05", "2026-07-06"}

var cats = []string{"a", "b", "c"}

// keys are the values of k; "" is written as an empty CSV field: NULL.
var keys = []string{"", "k1", "k2"}

// newRand is the one random source: the same seed gives the same project
// and the same operations on every machine.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x5eed5eed5eed5eed))
}

// generateLineage says whether a sequence's project starts with
// lineage_columns on (one in three) and where, if anywhere, an operation
// turning it on or off is inserted among nOps (one sequence in four; -1
// for none). It draws from a stream of its own, so that the projects and
// the drawn operations of the corpus's seeds are what they were before
// lineage existed.
func generateLineage(seed uint64, nOps int) (on bool, toggleAt int) {
	r := rand.New(rand.NewPCG(seed, 0x11ea9e11ea9e))
	on, toggleAt = r.IntN(3) == 0, -1
	if r.IntN(4) == 0 {
		toggleAt = r.IntN(nOps + 1)
	}
	return on, toggleAt
}

// generateIncFilters gives, in one sequence in two, each model of the
// common row shape an is_incremental() filter with even odds: views and
// tables too, whose render never takes the branch until a switch makes
// them incremental (a view's relation is then replaced before the SQL
// runs, so is_incremental() must still be false). It draws from a stream
// of its own, like generateLineage, so the corpus's projects and
// operations are what they were before.
func generateIncFilters(seed uint64, p *Project) {
	r := rand.New(rand.NewPCG(seed, 0x1ec4e3e7a1))
	if r.IntN(2) != 0 {
		return
	}
	for _, m := range p.Models {
		m.IncFilter = r.IntN(2) == 0 && m.Shape != ShapeAgg
	}
}

// Generate returns a random small project: 1–3 seeds and 2–7 models.
func Generate(r *rand.Rand) *Project {
	p := &Project{}
	for i := range 1 + r.IntN(3) {
		s := &Seed{Name: fmt.Sprintf("s%d", i+1)}
		for j := range 3 + r.IntN(5) {
			s.Rows = append(s.Rows, randomRow(r, j+1))
		}
		p.Seeds = append(p.Seeds, s)
	}
	depth := map[string]int{}
	for i := range 2 + r.IntN(6) {
		m := generateModel(r, p, fmt.Sprintf("m%d", i+1), depth)
		p.Models = append(p.Models, m)
	}
	return p
}

func randomRow(r *rand.Rand, id int) SeedRow {
	return SeedRow{
		ID:     id,
		Day:    days[r.IntN(len(days))],
		K:      keys[r.IntN(len(keys))],
		Amount: r.IntN(50),
		Cat:    cats[r.IntN(len(cats))],
	}
}

// readable lists the nodes a new model may read: every seed, and every
// model of the common row shape whose chain is not yet maxDepth long. A
// merge model is read by nothing: it keeps keys that left its batch (its
// contract), so whatever reads it is not rebuild-equivalent either, and
// the comparison could not tell a bug from the contract.
func readable(p *Project, depth map[string]int) []string {
	var out []string
	for _, s := range p.Seeds {
		out = append(out, s.Name)
	}
	for _, m := range p.Models {
		if m.Shape != ShapeAgg && m.Kind != KindMerge && depth[m.Name] < maxDepth {
			out = append(out, m.Name)
		}
	}
	return out
}

func generateModel(r *rand.Rand, p *Project, name string, depth map[string]int) *Model {
	m := &Model{Name: name, MinAmount: r.IntN(10), Bump: r.IntN(3)}
	k := r.IntN(100)
	switch {
	case k < 25:
		m.Kind = KindView
	case k < 45:
		m.Kind = KindTable
	case k < 55:
		m.Kind = KindEphemeral
	case k < 70:
		m.Kind = KindDeleteInsert
	case k < 80:
		m.Kind = KindInsertOverwrite
	default:
		m.Kind = KindMerge
	}
	cands := readable(p, depth)
	m.Shape = ShapePass
	switch {
	case len(cands) >= 2 && r.IntN(4) == 0:
		m.Shape = ShapeJoin
	case (m.Kind == KindTable || m.Kind == KindView) && r.IntN(6) == 0:
		m.Shape = ShapeAgg
	}
	m.Refs = []string{cands[r.IntN(len(cands))]}
	if m.Shape == ShapeJoin {
		for {
			b := cands[r.IntN(len(cands))]
			if b != m.Refs[0] {
				m.Refs = append(m.Refs, b)
				break
			}
		}
	}
	for _, ref := range m.Refs {
		depth[name] = max(depth[name], depth[ref]+1)
	}
	if m.Partitioned() {
		m.Start = days[1+r.IntN(2)]
		m.Lookback = r.IntN(2)
	}
	if m.Kind == KindMerge {
		m.Key = []string{"id"}
		if r.IntN(2) == 0 {
			m.Key = []string{"k", "id"} // NULL key parts: matching must be null-safe
		}
	}
	if r.IntN(5) == 0 {
		m.Extra = []string{"int", "dec", "text"}[r.IntN(3)]
	}
	generateChecks(r, p, m)
	return m
}

// generateChecks declares checks on tables and incremental models. They pass
// on generated data; Checks.Failing (an operation) makes one fail.
func generateChecks(r *rand.Rand, p *Project, m *Model) {
	if m.Kind == KindView || m.Kind == KindEphemeral {
		return
	}
	c := &m.Checks
	if m.Shape == ShapeAgg {
		if r.IntN(3) == 0 {
			c.MinRows = 1
		}
		return
	}
	c.NotNull = r.IntN(5) < 2
	c.Unique = r.IntN(10) < 3
	if r.IntN(4) == 0 {
		c.Accepted = append([]string(nil), cats...)
	}
	if m.Kind == KindTable && r.IntN(5) == 0 {
		c.MinRows = 1
	}
	// relationships needs a relation holding every id this model can read:
	// an unpartitioned upstream model that does not filter more than us.
	if up := p.Model(m.Refs[0]); up != nil && r.IntN(4) == 0 &&
		(up.Kind == KindView || up.Kind == KindTable) && up.Shape != ShapeAgg {
		c.Rel = up.Name
	}
}
