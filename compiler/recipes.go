package compiler

import (
	"sync"

	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/plan"
)

// explicitWindow is the partition or range named on the command line.
type explicitWindow struct{ partition, start, end string }

// planUnits plans what is stale in the selection, given the audit state
// (the planner, units.go), model by model in dependency order; each
// model's units, once planned, go to planned.
func (cc *compilation) planUnits(planned func(*plan.Unit)) {
	opts := cc.opts
	var window *explicitWindow
	if opts.Partition != "" || opts.Start != "" || opts.End != "" {
		window = &explicitWindow{partition: opts.Partition, start: opts.Start, end: opts.End}
	}
	pl := &planner{plan: cc.plan, models: cc.models, opts: opts, window: window, chosen: cc.chosen, d: cc.d, p: cc.p, state: cc.state, target: cc.target,
		unitsOf: map[string][]*plan.Unit{}, vers: newVersions()}
	cc.plan.UnitGraph = dag.New()
	for _, n := range cc.order {
		before := len(cc.plan.Units)
		if err := pl.model(n); err != nil {
			cc.errs.Append(err)
		}
		for _, u := range cc.plan.Units[before:] { // final: the planner is done with n
			planned(u)
		}
	}
}

// buildUnit is one unit of model c for window w (nil: the whole model),
// its SQL not yet filled.
func (pl *planner) buildUnit(c *compiled, w *plan.Window) *plan.Unit {
	opts, state, target := pl.opts, pl.state, pl.target
	part := ""
	if w != nil {
		part = w.Key
	}
	wr := &plan.Write{
		Model: c.m.Name, Materialized: c.cfg.Materialized, Strategy: c.strategy, Target: c.rel,
		PartitionBy: c.cfg.PartitionBy, Window: w,
		UniqueKey: c.cfg.UniqueKey, UpdateColumns: c.cfg.MergeUpdateColumns, ExcludeColumns: c.cfg.MergeExcludeColumns,
		Checks: c.writeChecks(), FullRefresh: opts.FullRefresh, State: state,
	}
	if c.res.Parsed && !c.res.Star && c.res.Columns != nil && !hasEmpty(c.res.Columns) {
		wr.Columns = c.res.Columns
	}
	if c.m.Lineage {
		// The lineage columns are the batch's last (LineageSelect), and a
		// matched merge row takes the new run's: it was rewritten.
		if wr.Columns != nil {
			wr.Columns = append(append([]string(nil), wr.Columns...), plan.LineageColumns()...)
		}
		if len(wr.UpdateColumns) > 0 {
			wr.UpdateColumns = append(append([]string(nil), wr.UpdateColumns...), plan.LineageColumns()...)
		}
	}
	if c.cfg.Watermark != nil {
		wr.Watermark = &plan.WatermarkWrite{Column: c.cfg.Watermark.Column}
	}
	if opts.RunID != "" {
		wr.Audit = &plan.AuditRow{RunID: opts.RunID, Job: c.m.Name, Partition: part, CodeHash: c.hash, GitCommit: opts.GitCommit, Target: target, AsOf: opts.AsOf}
	}
	if c.cfg.Materialized == plan.View || c.cfg.Materialized == plan.Table {
		wr.Strategy = ""
	}
	// The SQL (Select and Steps) is filled by planAndFill, in parallel.
	return &plan.Unit{ID: plan.UnitID(c.m.Name, part), Model: c.m.Name, Partition: part, Write: wr, CodeHash: c.hash}
}

func hasEmpty(cols []string) bool {
	for _, c := range cols {
		if c == "" {
			return true
		}
	}
	return false
}

// planAndFill plans the units (planUnits) and fills their SQL: each
// unit's SELECT, key and reuse on the workers as soon as its model is
// planned (a warm compile's planning leaves a CPU idle), then, once the
// whole plan is made, the recipes of the units not reused, so that a plan
// with errors files nothing. A selected model without a unit shows its SQL
// for the latest window.
func (cc *compilation) planAndFill() {
	pl := cc.plan
	type filling struct {
		u   *plan.Unit
		sel string // the model's own SELECT, for display
	}
	var fills []*filling
	next := make(chan *filling, 256)
	var wg sync.WaitGroup
	for w := 0; w < max(cc.workers, 1); w++ { // at least one: the planner waits on them
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keyer unitKeyer
			for f := range next {
				u := f.u
				c := cc.models[u.Model]
				f.sel = cc.expand(c, u.Write.Window)
				u.Write.Select = f.sel
				if c.m.Lineage {
					u.Write.Select = cc.d.LineageSelect(f.sel, cc.opts.RunID, cc.opts.AsOf)
				}
				if !cc.opts.NoRecipes {
					if u.Key = cc.unitKey(u, &keyer); u.Key != "" {
						u.Reused = cc.opts.Reuse(u)
					}
				}
			}
		}()
	}
	cc.planUnits(func(u *plan.Unit) {
		if !u.Seed {
			f := &filling{u: u}
			fills = append(fills, f)
			next <- f
		}
	})
	close(next)
	wg.Wait()
	if !cc.opts.NoRecipes {
		units := make([]*plan.Unit, len(fills))
		for i, f := range fills {
			units[i] = f.u
		}
		cc.makeRecipes(units)
	}
	for _, f := range fills {
		pl.Nodes[f.u.Model].SQL = f.sel
	}
	for _, n := range pl.Selected {
		if node := pl.Nodes[n]; !node.Seed && node.SQL == "" && cc.models[n].cfg.Materialized != plan.Ephemeral {
			node.SQL = cc.expand(cc.models[n], nil)
		}
	}
}

// makeRecipes builds the recipes of the units not reused, on the
// workers, and gives each to Options.Filed, unless the plan has errors
// (bad input writes nothing).
func (cc *compilation) makeRecipes(units []*plan.Unit) {
	filed := cc.opts.Filed
	if cc.errs.Err() != nil {
		filed = nil
	}
	next := make(chan *plan.Unit, len(units))
	for _, u := range units {
		if u.Reused == 0 {
			next <- u
		}
	}
	close(next)
	var wg sync.WaitGroup
	for w := 0; w < cc.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				u.Steps = cc.d.Recipe(u.Write)
				if filed != nil && filed(u) {
					u.Reused, u.Steps = len(u.Steps), nil
				}
			}
		}()
	}
	wg.Wait()
}

// renderedTest is one tests/*.sql file rendered for the target; its
// SQL is expanded when planning (it reads as_of).
type renderedTest struct {
	path string
	r    *render.Rendered
}

// renderTests renders the singular tests (tests/*.sql) for the target.
func (cc *compilation) renderTests() {
	for _, f := range cc.p.Tests {
		tpl, err := cc.env.Parse(f.Path, f.Text)
		if err == nil {
			var r *render.Rendered
			r, err = cc.env.Render(tpl, f.Text, cc.rctx)
			cc.opts.Work.rendered()
			if err == nil {
				cc.tests = append(cc.tests, renderedTest{path: f.Path, r: r})
			}
		}
		if err != nil {
			cc.errs.Append(asDiag(err))
		}
	}
}

// compileTests expands the rendered singular tests.
func (cc *compilation) compileTests() {
	for _, t := range cc.tests {
		c := &compiled{m: &project.Model{Name: t.path, Path: t.path}, cfg: &project.ModelConfig{}, tpl: t.r}
		cc.plan.Tests = append(cc.plan.Tests, &plan.SingularTest{Path: t.path, SQL: cc.expand(c, nil), Refs: t.r.Refs})
	}
}
