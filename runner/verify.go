package runner

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// VerifyOptions configure idemc verify.
type VerifyOptions struct {
	Compile compiler.Options
	// Runs is how many times each unit runs (at least 2).
	Runs    int
	Threads int
	// AgainstFullRefresh also rebuilds the selection and its ancestors from
	// scratch in scratch schemas and compares whole tables.
	AgainstFullRefresh bool
	Out                io.Writer
	// Trace and AfterStep are passed to every build (Options); AfterStep
	// is also called after the snapshots and the scratch build, as unit
	// "verify".
	Trace     io.Writer
	AfterStep StepHook
}

// VerifyResult is one unit's (or, against a full refresh, one model's) verdict.
type VerifyResult struct {
	Unit         string   `json:"unit"`
	Identical    bool     `json:"identical"`
	Fingerprints []string `json:"fingerprints"`
	Diff         []string `json:"diff,omitempty"`
	Error        string   `json:"error,omitempty"`
}

// verifySuffix names snapshot tables and scratch schemas.
const verifySuffix = "__idemc_verify"

// Verify runs each selected unit Runs times and compares, in the engine, a
// fingerprint of the region it owns after each run; a difference lists the
// first differing rows. Units are the explicit partitions, or the newest
// partition of each partitioned model, and every unpartitioned model.
func Verify(ctx context.Context, p *project.Project, vo VerifyOptions) ([]VerifyResult, error) {
	if vo.Runs < 2 {
		vo.Runs = 2
	}
	opts := vo.Compile
	opts.Models, opts.Seeds = true, true
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, err
	}
	units := verifyUnits(pl, opts)
	if len(units) == 0 {
		return nil, fmt.Errorf("runner: nothing to verify in the selection")
	}
	ad, _ := adapters.Lookup(pl.Engine)
	d, err := ad.VerifyDialect()
	if err != nil {
		return nil, err
	}
	release, err := claimScratch(ctx, p, opts.Target, pl, d)
	if err != nil {
		return nil, err
	}
	defer release()
	results := make([]VerifyResult, len(units))
	for i, id := range units {
		results[i].Unit = id
	}
	v := &verifyRun{p: p, vo: vo, opts: opts, pl: pl, d: d, units: units, results: results}
	defer func() { dropAll(ctx, p, opts.Target, v.snaps, d) }()
	for run := 1; run <= vo.Runs; run++ {
		if err := v.run(ctx, run); err != nil {
			return nil, err
		}
	}
	for i := range results {
		r := &results[i]
		r.Identical = r.Error == "" && len(r.Diff) == 0 && allEqual(r.Fingerprints)
	}
	if vo.AgainstFullRefresh {
		more, err := againstFullRefresh(ctx, p, vo, pl)
		if err != nil {
			return results, err
		}
		results = append(results, more...)
	}
	return results, nil
}

// verifyRun is one Verify: what it runs and what each run found.
type verifyRun struct {
	p       *project.Project
	vo      VerifyOptions
	opts    compiler.Options
	pl      *plan.Plan
	d       adapters.VerifyDialect
	units   []string
	results []VerifyResult // by unit, as units
	snaps   []plan.Relation
}

// run builds the units once more (run counts from 1) and compares each
// unit's rows with the first run's: the first run snapshots them.
func (v *verifyRun) run(ctx context.Context, run int) error {
	o := v.opts
	o.Units = v.units
	o.Select, o.Exclude = nil, nil
	o.KeepVersions = true
	res, err := Build(ctx, v.p, Options{Compile: o, Threads: v.vo.Threads, Command: "verify", Trace: v.vo.Trace, AfterStep: v.vo.AfterStep})
	if err != nil {
		return err
	}
	failed := map[string]string{}
	for _, u := range res.Units {
		if u.Status != StatusSucceeded {
			failed[u.ID] = string(u.Status) + ": " + u.Error
		}
	}
	c, err := openConn(ctx, v.p, v.opts.Target)
	if err != nil {
		return err
	}
	for i, id := range v.units {
		r := &v.results[i]
		if msg, bad := failed[id]; bad {
			r.Error = fmt.Sprintf("run %d %s", run, msg)
			continue
		}
		if err := v.compare(ctx, c.sess, i, run); err != nil {
			r.Error = err.Error()
		}
	}
	c.Close()
	// The tests' kill -9 and interrupt point: snapshots exist.
	return v.vo.AfterStep.after(ctx, "verify", "snapshot")
}

// compare fingerprints unit i's rows after a run; the first run copies
// them into a snapshot (one per unit: partitions of a model share a
// table), the later ones list up to five rows that differ from it.
func (v *verifyRun) compare(ctx context.Context, sess adapters.Session, i, run int) error {
	r, d := &v.results[i], v.d
	rel, where := region(v.pl, r.Unit, d)
	snap := rel
	snap.Name = sqlgen.Derive(d.IdentLimit(), d.IdentLimit().Name, snap.Name, fmt.Sprintf("%s_%d", verifySuffix, i))
	fp, cols, err := fingerprint(ctx, sess, d, rel, where)
	if err != nil {
		return err
	}
	r.Fingerprints = append(r.Fingerprints, fp)
	if run == 1 {
		q := "CREATE TABLE " + d.Qualify(snap) + " AS SELECT * FROM " + d.Qualify(rel) + " AS t"
		if where != "" {
			q += " WHERE " + where
		}
		if _, err := adapters.ExecSQL(ctx, sess, "DROP TABLE IF EXISTS "+d.Qualify(snap)); err != nil {
			return err
		}
		if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
			return err
		}
		v.snaps = append(v.snaps, snap)
		return nil
	}
	names, rows, err := sess.Query(ctx, sqlgen.DiffQuery(d, rel, where, snap, cols), 0)
	if err != nil {
		return err
	}
	for _, row := range rows {
		if len(r.Diff) < 5 {
			r.Diff = append(r.Diff, fmt.Sprintf("run %d %s", run, rowText(names, row)))
		}
	}
	return nil
}

// verifyUnits are the unit ids verify runs.
func verifyUnits(pl *plan.Plan, opts compiler.Options) []string {
	var ids []string
	for _, n := range pl.Selected {
		node := pl.Nodes[n]
		switch {
		case node.Seed || node.Materialized == plan.Ephemeral:
			continue
		case node.PartitionBy == "" || node.Materialized != plan.Incremental:
			ids = append(ids, n)
		case opts.Partition != "" || opts.Start != "":
			for _, u := range pl.Units {
				if u.Model == n {
					ids = append(ids, u.ID)
				}
			}
		default:
			newest := partition.Truncate(opts.AsOf.Add(-1), node.Granularity)
			ids = append(ids, plan.UnitID(n, partition.Key(newest, node.Granularity)))
		}
	}
	return ids
}

// region is the relation a unit writes and the predicate of its rows.
func region(pl *plan.Plan, id string, d adapters.Dialect) (plan.Relation, string) {
	model, key, _ := strings.Cut(id, "/")
	node := pl.Nodes[model]
	if key == "" {
		return node.Relation, ""
	}
	t, _ := partition.Parse(key, node.Granularity)
	w := partition.Window(t, node.Granularity)
	col := "t." + d.Quote(node.PartitionBy)
	return node.Relation, fmt.Sprintf("%s >= %s AND %s < %s", col, d.WindowLiteral(w.Start, w.Granularity), col, d.WindowLiteral(w.End, w.Granularity))
}

// fingerprint summarizes the rows of rel matching where over its columns
// but the row lineage columns, and returns those columns: each run
// rewrites the lineage columns with its own run id, by design.
func fingerprint(ctx context.Context, s adapters.Session, d adapters.VerifyDialect, rel plan.Relation, where string) (string, []string, error) {
	cols, ok, err := s.Relation(ctx, rel)
	if err != nil || !ok {
		if err == nil {
			err = fmt.Errorf("%s does not exist", d.Qualify(rel))
		}
		return "", nil, err
	}
	names := make([]string, 0, len(cols))
	for _, c := range cols {
		if !plan.IsLineageColumn(c.Name) {
			names = append(names, c.Name)
		}
	}
	_, rows, err := s.Query(ctx, d.Fingerprint(rel, where, names), 1)
	if err != nil {
		return "", nil, err
	}
	return "rows=" + rows[0][0] + " hash=" + rows[0][1], names, nil
}

func rowText(cols []string, row []string) string {
	parts := make([]string, len(row))
	for i, v := range row {
		parts[i] = cols[i] + "=" + v
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func allEqual(xs []string) bool {
	for _, x := range xs {
		if x != xs[0] {
			return false
		}
	}
	return len(xs) > 0
}

// dropAll removes verify's snapshot tables.
func dropAll(ctx context.Context, p *project.Project, target string, rels []plan.Relation, d adapters.Dialect) {
	if len(rels) == 0 {
		return
	}
	c, err := openConn(context.WithoutCancel(ctx), p, target)
	if err != nil {
		return
	}
	defer c.Close()
	for _, r := range rels {
		_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), c.sess, "DROP TABLE IF EXISTS "+d.Qualify(r))
	}
}

// againstFullRefresh builds the selection and its ancestors from scratch in
// scratch schemas (<schema>__idemc_verify, scratchName), compares each selected model's
// whole table with the incrementally built one, then drops the scratch
// schemas.
func againstFullRefresh(ctx context.Context, p *project.Project, vo VerifyOptions, pl *plan.Plan) ([]VerifyResult, error) {
	scratch := scratchProject(p, pl.Engine)
	o := vo.Compile
	o.FullRefresh, o.Models, o.Seeds = true, true, true
	o.Partition, o.Start, o.End, o.Units = "", "", "", nil
	o.Cache = "" // the scratch copy's entries would replace the project's
	var sel []string
	for _, n := range pl.Selected {
		sel = append(sel, "+"+n)
	}
	o.Select, o.Exclude = []string{strings.Join(sel, " ")}, nil
	res, err := Build(ctx, scratch, Options{Compile: o, Threads: vo.Threads, Command: "verify", Trace: vo.Trace, AfterStep: vo.AfterStep})
	splan, perr := compiler.Compile(scratch, o)
	defer dropScratch(ctx, p, vo.Compile.Target, splan, perr)
	if err != nil {
		return nil, err
	}
	if err := vo.AfterStep.after(ctx, "verify", "scratch"); err != nil {
		return nil, err
	}
	if !res.OK() {
		return nil, fmt.Errorf("runner: the full-refresh build in the scratch schema failed; see its output")
	}
	c, err := openConn(ctx, p, vo.Compile.Target)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	d, err := c.ad.VerifyDialect()
	if err != nil {
		return nil, err
	}
	var out []VerifyResult
	for _, n := range pl.Selected {
		node := pl.Nodes[n]
		if node.Seed || node.Materialized == plan.Ephemeral {
			continue
		}
		out = append(out, compareFullRefresh(ctx, c.sess, d, n, node.Relation, splan.Nodes[n].Relation))
	}
	return out, nil
}

// scratchProject is a copy of p whose targets, seeds and models with a
// schema of their own write to scratch schemas.
func scratchProject(p *project.Project, engine string) *project.Project {
	scratch := *p
	scratch.Targets = map[string]*project.Target{}
	for name, t := range p.Targets {
		ct := *t
		ct.Schema = scratchName(t.Engine, ct.Schema)
		if ct.StateSchema != "" {
			ct.StateSchema = scratchName(t.Engine, ct.StateSchema)
		}
		scratch.Targets[name] = &ct
	}
	scratch.SeedSchema = ""
	if p.SeedSchema != "" {
		scratch.SeedSchema = scratchName(engine, p.SeedSchema)
	}
	scratch.Seeds = make([]*project.Seed, len(p.Seeds))
	for i, s := range p.Seeds {
		cs := *s
		if cs.Schema != "" {
			cs.Schema = scratchName(engine, cs.Schema)
		}
		scratch.Seeds[i] = &cs
	}
	scratch.Models = make([]*project.Model, len(p.Models))
	for i, m := range p.Models {
		cm := *m
		if cm.Config.Schema != "" {
			cm.Config.Schema = scratchName(engine, cm.Config.Schema)
		}
		scratch.Models[i] = &cm
	}
	return &scratch
}

// compareFullRefresh compares a model's relation with its full refresh in
// the scratch schema.
func compareFullRefresh(ctx context.Context, sess adapters.Session, d adapters.VerifyDialect, model string, rel, scratchRel plan.Relation) VerifyResult {
	r := VerifyResult{Unit: model + " (against a full refresh)"}
	a, cols, err1 := fingerprint(ctx, sess, d, rel, "")
	b, _, err2 := fingerprint(ctx, sess, d, scratchRel, "")
	switch {
	case err1 != nil:
		r.Error = err1.Error()
	case err2 != nil:
		r.Error = err2.Error()
	default:
		r.Fingerprints = []string{a, b}
		names, rows, err := sess.Query(ctx, sqlgen.DiffQuery(d, rel, "", scratchRel, cols), 0)
		if err != nil {
			r.Error = err.Error()
		}
		for _, row := range rows {
			r.Diff = append(r.Diff, strings.Replace(strings.Replace(rowText(names, row), "side=now", "incremental has", 1), "side=before", "full refresh has", 1))
		}
		r.Identical = a == b && len(rows) == 0 && err == nil
	}
	return r
}

// dropScratch drops every scratch schema the full-refresh build used.
func dropScratch(ctx context.Context, p *project.Project, target string, pl *plan.Plan, perr error) {
	if perr != nil || pl == nil {
		return
	}
	c, err := openConn(context.WithoutCancel(ctx), p, target)
	if err != nil {
		return
	}
	defer c.Close()
	s := c.sess
	d, err := c.ad.VerifyDialect()
	if err != nil {
		return
	}
	done := map[string]bool{}
	for _, node := range pl.Nodes {
		sc := node.Relation.Schema
		if strings.HasSuffix(sc, verifySuffix) && !done[sc] {
			done[sc] = true
			_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), s, d.DropSchema(sc))
		}
	}
}

// scratchName is schema+verifySuffix within the engine's name limit (a
// long schema's scratch name is shortened with a hash, keeping the suffix
// by which leftovers are found).
func scratchName(engine, schema string) string {
	var l adapters.IdentLimit
	if ad, ok := adapters.Lookup(engine); ok {
		l = ad.Dialect.IdentLimit()
	}
	return sqlgen.Derive(l, l.Name, schema, verifySuffix)
}
