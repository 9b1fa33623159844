package compiler

import (
	"strconv"
	"strings"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/selector"
	"github.com/idemc/idemc/plan"
)

// addModelNodes fills the model nodes (for selection and for the runner).
func (cc *compilation) addModelNodes() {
	pl := cc.plan
	for _, n := range cc.order {
		if c := cc.models[n]; c != nil {
			node := &plan.Node{Name: n, Path: c.m.Path, Relation: c.rel, Materialized: c.cfg.Materialized, Strategy: c.strategy,
				Tags: c.cfg.Tags, PartitionBy: c.cfg.PartitionBy, Granularity: c.gran, OnSchemaChange: c.cfg.OnSchemaChange, CodeHash: c.hash, Checks: c.checks, Columns: c.res.Columns,
				Lineage: c.res.Lineage, Description: c.cfg.Description}
			if !c.res.Parsed || c.res.Star {
				node.Columns, node.Lineage = nil, nil
			}
			pl.Nodes[n] = node
		}
	}
}

// selectNodes applies --select and --exclude; the selection then gains
// the upstream relations it needs that the target lacks.
func (cc *compilation) selectNodes() error {
	pl := cc.plan
	sel := make([]selector.Node, 0, len(cc.order))
	// Without a selection every node is chosen and no fact is read (at
	// 10,000 models the facts' maps cost a warm compile ~15 ms).
	facts := len(cc.opts.Select) > 0 || len(cc.opts.Exclude) > 0
	for _, n := range cc.order {
		node := pl.Nodes[n]
		sn := selector.Node{Name: n, Path: node.Path, Tags: node.Tags, Result: cc.opts.Results[n]}
		if c := cc.models[n]; c != nil && facts {
			sn.Sources, sn.Config, sn.State = c.selectorFacts(cc.opts.State)
		}
		sel = append(sel, sn)
	}
	chosen, err := selector.Select(sel, pl.Graph, cc.opts.Select, cc.opts.Exclude)
	if err != nil {
		return diag.List{diag.Errorf("", 0, 0, "%v", err)}
	}
	cc.chosen = map[string]bool{}
	for _, n := range chosen {
		cc.chosen[n] = true
	}
	for _, n := range cc.order {
		if cc.chosen[n] {
			pl.Selected = append(pl.Selected, n)
		}
	}
	if cc.opts.Models && cc.opts.Units == nil {
		cc.addMissingUpstream()
	}
	cc.blockOnLintErrors()
	return nil
}

// blockOnLintErrors makes the error findings of the models a plan would
// build (the chosen ones, and the ephemeral ones inlined into them) errors
// of the plan: a model with an error finding is never built, but it does
// not stop ls, status or a build of other models.
func (cc *compilation) blockOnLintErrors() {
	for name, fs := range cc.lintErrs {
		if !cc.chosen[name] && !cc.inlinedIntoChosen(name) {
			continue
		}
		for _, f := range fs {
			cc.errs.Add(f.Path, f.Line, f.Col, "%s %s", f.Rule, f.Message)
		}
	}
}

// addMissingUpstream: a selected model needs its upstream relations, so
// any ancestor that does not exist in the target yet (a fresh warehouse) is
// built too, seeds included, so `build --select events_daily` works on a
// fresh machine. (Issue 18: this walks every selected model's ancestors.)
func (cc *compilation) addMissingUpstream() {
	pl, models := cc.plan, cc.models
	added := map[string]bool{}
	// One walk over the selection's ancestors, not one per selected model
	// (issue 18: 5.4 s for 10k models in 50 layers).
	for _, a := range pl.Graph.AncestorsOfAll(pl.Selected) {
		if cc.chosen[a] || (models[a] != nil && models[a].cfg.Materialized == plan.Ephemeral) {
			continue
		}
		if !cc.opts.State.Exists(pl.Nodes[a].Relation) {
			added[a] = true
		}
	}
	if len(added) == 0 {
		return
	}
	for a := range added {
		cc.chosen[a] = true
	}
	pl.Selected = pl.Selected[:0]
	for _, n := range cc.order {
		if cc.chosen[n] {
			pl.Selected = append(pl.Selected, n)
		}
	}
	cc.opts.Seeds = cc.opts.Seeds || anySeed(pl, added)
	cc.opts.HTTP = cc.opts.HTTP || anyHTTP(pl, added)
}

func anySeed(pl *plan.Plan, names map[string]bool) bool {
	for n := range names {
		if pl.Nodes[n].Seed {
			return true
		}
	}
	return false
}

// inlinedIntoChosen reports whether name is an ephemeral model inlined,
// directly or through other ephemeral models, into a chosen one.
func (cc *compilation) inlinedIntoChosen(name string) bool {
	seen := map[string]bool{}
	next := []string{name}
	for len(next) > 0 {
		n := next[len(next)-1]
		next = next[:len(next)-1]
		if m := cc.models[n]; m == nil || m.cfg.Materialized != plan.Ephemeral || seen[n] {
			continue
		}
		seen[n] = true
		for _, d := range cc.plan.Graph.Downstream(n) {
			if cc.chosen[d] {
				return true
			}
			next = append(next, d)
		}
	}
	return false
}

// selectorFacts are what source:, config.<key>: and state: select a model
// by: the sources it reads, its settings, and whether its code differs from
// its latest success ("modified") or it never succeeded ("new").
func (c *compiled) selectorFacts(st State) (sources []string, config map[string]string, state string) {
	for _, s := range c.tpl.Sources {
		sources = append(sources, s[0]+"."+s[1])
	}
	cfg := c.cfg
	config = map[string]string{"materialized": cfg.Materialized, "strategy": c.strategy, "partition_by": cfg.PartitionBy,
		"granularity": c.gran, "on_schema_change": cfg.OnSchemaChange, "schema": cfg.Schema, "alias": cfg.Alias,
		"unique_key": strings.Join(cfg.UniqueKey, ","), "lookback": strconv.Itoa(cfg.Lookback), "tags": strings.Join(cfg.Tags, ",")}
	for k, v := range config {
		if v == "" {
			delete(config, k)
		}
	}
	var latest Attempt
	for _, k := range append(st.Keys(c.m.Name), "") {
		if a, ok := st.Latest(c.m.Name, k); ok && a.Status == "succeeded" && a.RunID > latest.RunID {
			latest = a
		}
	}
	switch {
	case latest.RunID == "":
		state = "new"
	case latest.CodeHash != "" && latest.CodeHash != c.hash:
		state = "modified"
	}
	return sources, config, state
}
