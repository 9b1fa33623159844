package compiler

import (
	"sort"

	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/plan"
)

// connect builds the model graph, the checks and the lint findings, then
// orders the graph. It reports whether planning can go on (no cycle and no
// error so far).
func (cc *compilation) connect() bool {
	// A source read from a table that a seed loads depends on that seed,
	// so builds load seeds first.
	seedAt := map[plan.Relation]string{}
	for n, node := range cc.plan.Nodes {
		if node.Seed {
			seedAt[node.Relation] = n
		}
	}
	for _, c := range cc.list {
		cc.connectReads(c, seedAt)
		c.checks = cc.checksOf(c)
		c.drift = driftChecks(c.m.Drift)
		for _, u := range c.extraUp {
			if u != c.m.Name {
				cc.plan.Graph.Connect(u, c.m.Name)
			}
		}
		for _, f := range c.res.Findings {
			cc.plan.Findings = append(cc.plan.Findings, f)
			if f.Severity == analyze.Error && !cc.opts.LintOnly {
				if cc.lintErrs == nil {
					cc.lintErrs = map[string][]diag.Finding{}
				}
				cc.lintErrs[c.m.Name] = append(cc.lintErrs[c.m.Name], f)
			}
		}
	}
	sortFindings(cc.plan.Findings)
	order, err := cc.plan.Graph.TopoOrder()
	if err != nil {
		for _, cyc := range cc.plan.Graph.Cycles() {
			path := ""
			if c := cc.models[cyc.Cycle[0]]; c != nil {
				path = c.m.Path
			}
			cc.errs.Add(path, 0, 0, "%s", cycleMessage(cyc.Cycle, cc.models))
		}
		return false
	}
	cc.order = order
	return len(cc.errs) == 0
}

// connectReads puts an edge from every model c refs and from every seed
// loading a source it reads, and records what each resolves to.
func (cc *compilation) connectReads(c *compiled, seedAt map[plan.Relation]string) {
	graph := cc.plan.Graph
	for _, r := range c.tpl.Refs {
		graph.Connect(r, c.m.Name)
		c.dataUp = append(c.dataUp, r)
		rel := plan.Relation{}
		if m := cc.models[r]; m != nil {
			rel = m.rel
		} else if n := cc.plan.Nodes[r]; n != nil {
			rel = n.Relation
		}
		c.resolved = append(c.resolved, r+"@"+rel.Database+"."+rel.Schema+"."+rel.Name)
	}
	for _, s := range c.tpl.Sources {
		src := cc.p.Sources[s[0]]
		id := src.Identifier(s[1])
		c.resolved = append(c.resolved, s[0]+"."+s[1]+"@"+src.Database+"."+src.Schema+"."+id)
		if seed, ok := seedAt[plan.Relation{Database: src.Database, Schema: src.Schema, Name: id}]; ok {
			graph.Connect(seed, c.m.Name)
			c.dataUp = append(c.dataUp, seed)
		} else {
			c.external = true
		}
	}
}

// sortFindings orders findings by position, keeping the rule order of one
// position.
func sortFindings(fs []analyze.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}
