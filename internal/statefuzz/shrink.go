package statefuzz

import (
	"context"
	"slices"
)

// ReplayFunc replays a sequence; the shrinker is written against it so
// that its own test can use a synthetic one.
type ReplayFunc func(ctx context.Context, p *Project, ops []Op, threads int) (*Failure, error)

// Shrink makes a failure as small as it can within budget replays: first
// delta debugging on the operations (the ones after the failing step never
// matter), then simplifications of the project (fewer models, seeds, rows
// and checks; plainer SQL). A candidate is kept when its replay still fails
// with a difference of the same class.
func Shrink(ctx context.Context, replay ReplayFunc, f *Failure, budget int) *Failure {
	s := &shrinker{ctx: ctx, replay: replay, best: f, class: f.Class(), budget: budget}
	s.try(f.Project, f.Ops[:f.Step])
	s.shrinkOps()
	for progress := true; progress && s.budget > 0; {
		progress = false
		for _, cand := range simplifications(s.best.Project) {
			if s.try(cand, s.best.Ops[:s.best.Step]) {
				progress = true
				break
			}
		}
	}
	s.shrinkOps() // a smaller project can make more operations irrelevant
	return s.best
}

type shrinker struct {
	ctx    context.Context
	replay ReplayFunc
	best   *Failure
	class  string
	budget int
}

// try replays a candidate and keeps it if it fails the same way.
func (s *shrinker) try(p *Project, ops []Op) bool {
	if s.budget <= 0 {
		return false
	}
	s.budget--
	f, err := s.replay(s.ctx, p, ops, s.best.Threads)
	if err != nil || f == nil || f.Class() != s.class {
		return false
	}
	f.Seed, f.Engine = s.best.Seed, s.best.Engine
	s.best = f
	return true
}

// shrinkOps is ddmin: remove ever smaller chunks of operations while the
// failure stays.
func (s *shrinker) shrinkOps() {
	for n := 2; s.budget > 0; {
		ops := s.best.Ops[:s.best.Step]
		if len(ops) == 0 {
			return
		}
		n = min(n, len(ops))
		chunk := (len(ops) + n - 1) / n
		removed := false
		for start := 0; start < len(ops); start += chunk {
			rest := slices.Concat(ops[:start], ops[min(start+chunk, len(ops)):])
			if s.try(s.best.Project, rest) {
				n, removed = max(n-1, 2), true
				break
			}
		}
		if !removed {
			if n == len(ops) {
				return
			}
			n = min(2*n, len(ops))
		}
	}
}

// simplifications lists smaller variants of p, most reducing first.
func simplifications(p *Project) []*Project {
	var out []*Project
	for i := len(p.Models) - 1; i >= 0; i-- {
		out = append(out, without(p, p.Models[i].Name))
	}
	for _, sd := range p.Seeds {
		if len(p.Seeds) > 1 && len(p.readers(sd.Name)) == 0 {
			out = append(out, without(p, sd.Name))
		}
	}
	for si, sd := range p.Seeds {
		for ri := range sd.Rows {
			q := p.Clone()
			q.Seeds[si].Rows = slices.Delete(q.Seeds[si].Rows, ri, ri+1)
			out = append(out, q)
		}
	}
	for mi, m := range p.Models {
		plain := *m
		plain.Checks, plain.Extra, plain.Bump, plain.MinAmount, plain.Lookback = Checks{Failing: m.Checks.Failing}, "", 0, 0, 0
		if !equalModel(&plain, m) {
			q := p.Clone()
			q.Models[mi] = &plain
			out = append(out, q)
		}
	}
	return out
}

// without removes a node and, transitively, every model that reads it;
// checks that point at a removed model are dropped.
func without(p *Project, name string) *Project {
	q := p.Clone()
	gone := map[string]bool{name: true}
	for changed := true; changed; {
		changed = false
		for _, m := range q.Models {
			if gone[m.Name] {
				continue
			}
			for _, r := range m.Refs {
				if gone[r] {
					gone[m.Name], changed = true, true
				}
			}
		}
	}
	q.Models = slices.DeleteFunc(q.Models, func(m *Model) bool { return gone[m.Name] })
	q.Seeds = slices.DeleteFunc(q.Seeds, func(s *Seed) bool { return gone[s.Name] })
	for _, m := range q.Models {
		if gone[m.Checks.Rel] {
			m.Checks.Rel = ""
		}
	}
	return q
}

func equalModel(a, b *Model) bool {
	return a.Extra == b.Extra && a.Bump == b.Bump && a.MinAmount == b.MinAmount && a.Lookback == b.Lookback &&
		a.Checks.NotNull == b.Checks.NotNull && a.Checks.Unique == b.Checks.Unique && a.Checks.Accepted == nil && b.Checks.Accepted == nil &&
		a.Checks.MinRows == b.Checks.MinRows && a.Checks.Rel == b.Checks.Rel
}
