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
// (the planner, units.go), model by model in dependency order.
func (cc *compilation) planUnits() {
	opts := cc.opts
	var window *explicitWindow
	if opts.Partition != "" || opts.Start != "" || opts.End != "" {
		window = &explicitWindow{partition: opts.Partition, start: opts.Start, end: opts.End}
	}
	pl := &planner{plan: cc.plan, models: cc.models, opts: opts, window: window, chosen: cc.chosen, d: cc.d, p: cc.p, state: cc.state, target: cc.target,
		unitsOf: map[string][]*plan.Unit{}, vers: newVersions()}
	cc.plan.UnitGraph = dag.New()
	for _, n := range cc.order {
		if err := pl.model(n); err != nil {
			cc.errs.Append(err)
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
	// The SQL (Select and Steps) is filled by fillSQL, in parallel.
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

// fillSQL renders every unit's SELECT and recipe, spread over the workers:
// after planning, units are independent. A selected model without a unit
// shows its SQL for the latest window.
func (cc *compilation) fillSQL() {
	pl := cc.plan
	var wg sync.WaitGroup
	next := make(chan int, len(pl.Units))
	for i, u := range pl.Units {
		if !u.Seed {
			next <- i
		}
	}
	close(next)
	sels := make([]string, len(pl.Units)) // the models' own SELECTs, for display
	filed := cc.opts.Filed
	if cc.errs.Err() != nil {
		filed = nil // bad input: nothing is written
	}
	for w := 0; w < cc.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var keyer unitKeyer
			for i := range next {
				u := pl.Units[i]
				c := cc.models[u.Model]
				sels[i] = cc.expand(c, u.Write.Window)
				u.Write.Select = sels[i]
				if c.m.Lineage {
					u.Write.Select = cc.d.LineageSelect(sels[i], cc.opts.RunID, cc.opts.AsOf)
				}
				if cc.opts.NoRecipes {
					continue
				}
				if u.Key = cc.unitKey(u, &keyer); u.Key != "" {
					if u.Reused = cc.opts.Reuse(u); u.Reused > 0 {
						continue
					}
				}
				u.Steps = cc.d.Recipe(u.Write)
				if filed != nil && filed(u) {
					u.Reused, u.Steps = len(u.Steps), nil
				}
			}
		}()
	}
	wg.Wait()
	for i, u := range pl.Units {
		if !u.Seed {
			pl.Nodes[u.Model].SQL = sels[i]
		}
	}
	for _, n := range pl.Selected {
		if node := pl.Nodes[n]; !node.Seed && node.SQL == "" && cc.models[n].cfg.Materialized != plan.Ephemeral {
			node.SQL = cc.expand(cc.models[n], nil)
		}
	}
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
