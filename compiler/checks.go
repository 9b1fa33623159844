package compiler

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// checksOf turns a model's checks, typed and validated at load, into the
// engine's checks: the relations they read are resolved for the target,
// and those of models and seeds become upstream models of c.
func (cc *compilation) checksOf(c *compiled) []*plan.Check {
	if len(c.m.Checks) == 0 {
		return nil
	}
	out := make([]*plan.Check, 0, len(c.m.Checks))
	for i := range c.m.Checks {
		s := &c.m.Checks[i]
		ck := &plan.Check{Name: s.Name, Kind: s.Kind, Severity: s.Severity, Columns: s.Columns, Values: s.Values, MinRows: s.MinRows, Expr: s.Expr}
		if s.Relation != "" {
			rel, ok := cc.relationOf(c, s)
			if !ok {
				continue
			}
			if s.Kind == "relationships" {
				ck.To, ck.ToColumn = rel, s.RelationColumn
			} else {
				ck.Source, ck.SourceColumn = rel, s.RelationColumn
			}
		}
		out = append(out, ck)
	}
	return out
}

// relationOf resolves the model, seed or source table a check reads. Load
// refuses any other name; the error here covers a Project built by hand.
func (cc *compilation) relationOf(c *compiled, s *project.Check) (plan.Relation, bool) {
	name := s.Relation
	if m := cc.models[name]; m != nil {
		c.extraUp = append(c.extraUp, name)
		return m.rel, true
	}
	if n := cc.plan.Nodes[name]; n != nil && n.Seed {
		c.extraUp = append(c.extraUp, name)
		return n.Relation, true
	}
	if i := strings.IndexByte(name, '.'); i > 0 {
		if src := cc.p.Sources[name[:i]]; src != nil && contains(src.Tables, name[i+1:]) {
			return plan.Relation{Database: src.Database, Schema: src.Schema, Name: src.Identifier(name[i+1:])}, true
		}
	}
	cc.errs.Add(s.Pos.Path, s.Pos.Line, 0, "checks.%s: %q is neither a model, a seed nor a declared source table (source.table)", s.Kind, name)
	return plan.Relation{}, false
}

// driftChecks are a model's [drift] rules as checks of its units' writes
// (DESIGN §14): they run inside the write's transaction with the declared
// checks, and an error one rolls the unit back like them. They are not
// the node's checks: `idemc test` has no write to judge.
func driftChecks(d *project.Drift) []*plan.Check {
	if d == nil {
		return nil
	}
	var out []*plan.Check
	if d.ZeroRows != "" {
		out = append(out, &plan.Check{Name: plan.DriftPrefix + "zero_rows", Kind: plan.CheckDriftZeroRows, Severity: d.ZeroRows})
	}
	if r := d.RowCount; r != nil {
		out = append(out, &plan.Check{Name: fmt.Sprintf("%srow_count(window %d, ratio %g..%g)", plan.DriftPrefix, r.Window, r.MinRatio, r.MaxRatio),
			Kind: plan.CheckDriftRowCount, Severity: r.Severity, Window: r.Window, MinRatio: r.MinRatio, MaxRatio: r.MaxRatio})
	}
	return out
}

// writeChecks are a unit's checks: the declared ones, then drift's.
func (c *compiled) writeChecks() []*plan.Check {
	if len(c.drift) == 0 {
		return c.checks
	}
	return append(append([]*plan.Check(nil), c.checks...), c.drift...)
}
