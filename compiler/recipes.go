package compiler

import (
	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/plan"
)

// explicitWindow is the partition or range named on the command line.
type explicitWindow struct{ partition, start, end string }

// planUnits plans what is stale in the selection, given the audit state
// (the planner, units.go), model by model in dependency order, and fills
// the units' SQL (fill.go) as their models are planned.
func (cc *compilation) planUnits() {
	opts := cc.opts
	var window *explicitWindow
	if opts.Partition != "" || opts.Start != "" || opts.End != "" {
		window = &explicitWindow{partition: opts.Partition, start: opts.Start, end: opts.End}
	}
	pl := &planner{plan: cc.plan, models: cc.models, opts: opts, window: window, chosen: cc.chosen, d: cc.d, p: cc.p, state: cc.state, target: cc.target,
		unitsOf: map[string][]*plan.Unit{}, vers: newVersions()}
	cc.plan.UnitGraph = dag.New()
	f := cc.startFilling()
	for _, n := range cc.order {
		from := len(cc.plan.Units)
		if err := pl.model(n); err != nil {
			cc.errs.Append(err)
		}
		f.add(cc.plan.Units[from:]) // a model's units are final once it is planned
	}
	f.finish()
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
	// The SQL (Select and Steps) is filled by a filler (fill.go), in parallel.
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
