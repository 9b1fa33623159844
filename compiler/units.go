package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// planner decides which units are stale (DESIGN §9). A unit is up to date
// iff its latest attempt succeeded with the same input fingerprint — its
// code hash, its destination and the data version of everything it reads —
// and its destination exists. Forced units (--partition, --start/--end,
// --full-refresh) always run, except those a retry finds already done in
// the run it finishes. A table or unpartitioned incremental model that reads
// a source no seed loads always runs: idemc cannot see that data change.
// Partitioned models run their stale partitions plus lookback.
type planner struct {
	plan   *plan.Plan
	models map[string]*compiled
	opts   Options
	window *explicitWindow
	chosen map[string]bool
	d      adapters.PlanDialect
	p      *project.Project
	state  plan.State
	target string

	unitsOf map[string][]*plan.Unit
	vers    versions
}

func (pl *planner) model(n string) error {
	node := pl.plan.Nodes[n]
	if node.HTTP {
		return pl.httpSource(n, node)
	}
	if node.Seed {
		return pl.seed(n, node)
	}
	c := pl.models[n]
	if c.cfg.Materialized == plan.Ephemeral {
		return nil
	}
	cands, explicit, err := pl.candidates(c)
	if err != nil && !pl.chosen[n] {
		// An unselected model only informs its dependents: a partition
		// flag meant for the selection does not apply to it.
		saved := pl.window
		pl.window = nil
		cands, explicit, err = pl.candidates(c)
		pl.window = saved
	}
	if err != nil {
		return err
	}
	// With a unit list (retry, verify) only the listed units run; the other
	// models still give their readers the versions of what is there.
	runs := pl.chosen[n] && pl.opts.Models && (pl.opts.Units == nil || explicit)
	exists := pl.opts.State.Exists(c.rel)
	var run []bool
	var fps, why []string
	if runs { // an unselected model only passes on the versions of what is there
		run, fps, why = pl.stale(c, cands, explicit, exists)
	}
	for i, w := range cands {
		key := keyOf(w)
		if runs && run[i] {
			pl.vers.unit[plan.UnitID(n, key)] = pl.writeVersion(n, key, fps[i])
			continue
		}
		pl.vers.unit[plan.UnitID(n, key)] = pl.stateVersion(n, key, exists)
		if runs {
			if w == nil || explicit || len(pl.plan.UpToDate) < maxUpToDate {
				pl.plan.UpToDate = append(pl.plan.UpToDate, plan.UnitID(n, key))
			}
			pl.plan.UpToDateCount++
		}
	}
	pl.vers.model[n] = pl.wholeVersion(c, cands, exists)
	if !runs {
		return nil
	}
	var replacer *plan.Unit
	replace := exists && len(cands) > 0 && cands[0] != nil && shapeChanged(pl.opts.State, n)
	for i, w := range cands {
		if !run[i] {
			continue
		}
		u := pl.buildUnit(c, w)
		u.Inputs, u.DataVersion = fps[i], pl.vers.unit[u.ID]
		if why != nil {
			u.Reason = why[i]
		}
		if u.Write.Audit != nil {
			u.Write.Audit.Inputs, u.Write.Audit.DataVersion = u.Inputs, u.DataVersion
		}
		pl.add(u, c)
		switch {
		case replace && replacer == nil:
			u.Write.Replace, replacer = true, u
		case replacer != nil:
			// The model's other units write into the new relation.
			pl.plan.UnitGraph.Connect(replacer.ID, u.ID)
		}
	}
	return nil
}

// shapeChanged reports whether a partitioned model's relation holds an
// unpartitioned write: the model's latest unpartitioned unit succeeded
// after every success of its partitions (it was a table or an
// unpartitioned incremental model). Every partition that succeeded before
// is then stale (overwritten), so a plain build rewrites them all into
// the replaced relation.
func shapeChanged(st State, model string) bool {
	whole, ok := st.Latest(model, "")
	return ok && whole.Status == "succeeded" && !overwritten(st, model, "", whole.RunID)
}

// stale decides which of a selected model's candidate units run, and
// returns their input fingerprints.
func (pl *planner) stale(c *compiled, cands []*plan.Window, explicit, exists bool) ([]bool, []string, []string) {
	n := c.m.Name
	empty := exists && pl.opts.State.Empty(c.rel)
	forced := explicit || pl.opts.FullRefresh
	run := make([]bool, len(cands))
	fps := make([]string, len(cands))
	var why []string
	if pl.opts.Explain {
		why = make([]string, len(cands))
	}
	because := func(i int, r string) {
		if why != nil && why[i] == "" {
			why[i] = r
		}
	}
	newest := -1
	for i, w := range cands {
		key := keyOf(w)
		fps[i] = pl.fingerprint(c, key)
		last, ok := pl.opts.State.Latest(n, key)
		done := ok && last.Status == "succeeded"
		switch {
		case forced:
			run[i] = !(done && pl.resumed(last.RunID))
			because(i, forcedReason(pl.opts, explicit))
		case !done || last.Inputs != fps[i] || !exists || empty && last.RowCount > 0:
			// A table emptied outside idemc is as good as dropped.
			run[i] = true
			if why != nil {
				because(i, pl.staleReason(c, key, w, last, ok, exists, empty))
			}
		case c.external && w == nil && c.cfg.Materialized != plan.View:
			run[i] = true
			because(i, "reads a source idemc cannot see change: runs every time")
		case overwritten(pl.opts.State, n, key, last.RunID):
			run[i] = true
			because(i, "overwritten since by the model's other shape (partitioned or not)")
		}
		if run[i] && w != nil && !explicit {
			newest = i
		}
	}
	// lookback: the partitions before the newest stale one run too.
	if newest >= 0 {
		for i := newest - 1; i >= 0 && i >= newest-c.cfg.Lookback; i-- {
			run[i] = true
			because(i, fmt.Sprintf("lookback %d before %s", c.cfg.Lookback, keyOf(cands[newest])))
		}
	}
	return run, fps, why
}

// overwritten reports whether a later success of the model with the other
// shape (partitioned or not) replaced what this unit wrote: the model's
// materialization changed and changed back, to code whose old audit row
// would otherwise still look up to date.
func overwritten(st State, model, key, runID string) bool {
	if key != "" {
		last, ok := st.Latest(model, "")
		return ok && last.Status == "succeeded" && last.RunID > runID
	}
	for _, k := range st.Keys(model) {
		if last, ok := st.Latest(model, k); k != "" && ok && last.Status == "succeeded" && last.RunID > runID {
			return true
		}
	}
	return false
}

// resumed reports whether a run is the one a retry finishes, or later.
func (pl *planner) resumed(runID string) bool {
	return pl.opts.ResumeFrom != "" && runID >= pl.opts.ResumeFrom
}

// maxUpToDate bounds the up-to-date units listed by name.
const maxUpToDate = 10000

func keyOf(w *plan.Window) string {
	if w == nil {
		return ""
	}
	return w.Key
}

// add puts a unit in the plan, after the units it must wait for.
func (pl *planner) add(u *plan.Unit, c *compiled) {
	pl.plan.Units = append(pl.plan.Units, u)
	pl.unitsOf[u.Model] = append(pl.unitsOf[u.Model], u)
	pl.plan.UnitGraph.Add(u.ID)
	for _, id := range pl.waitFor(c, u.Partition) {
		pl.plan.UnitGraph.Connect(id, u.ID)
	}
}

// waitFor lists the planned units a unit of c for partition part must run
// after: the nearest planned units upstream along the model graph (refs,
// seeds and the relations its checks read), looking *through* every model
// with no unit in this plan (ephemeral, view or table up to date,
// unselected), so that a view never hides a reload from its readers. A
// partition waits for the same partition of models partitioned alike.
func (pl *planner) waitFor(c *compiled, part string) []string {
	var out []string
	seen := map[string]bool{}
	var visit func(m, part string)
	visit = func(m, part string) {
		for _, up := range pl.plan.Graph.Upstream(m) {
			k := up + "|" + part
			if seen[k] {
				continue
			}
			seen[k] = true
			us := upstreamUnits(pl.unitsOf, pl.models, up, part, c)
			if len(us) == 0 {
				// Partitioned alike but without this partition (it starts
				// later): its relation must still exist before this reads it.
				us = pl.unitsOf[up]
			}
			if len(us) > 0 {
				for _, u := range us {
					out = append(out, u.ID)
				}
				continue
			}
			upPart := ""
			if uc := pl.models[up]; part != "" && uc != nil && uc.cfg.PartitionBy != "" && uc.gran == c.gran {
				upPart = part
			}
			visit(up, upPart)
		}
	}
	visit(c.m.Name, part)
	return out
}

// seed plans a seed load when its content or destination changed since its
// latest load, or its table is missing.
func (pl *planner) seed(n string, node *plan.Node) error {
	b, err := os.ReadFile(filepath.Join(pl.p.Root, node.Path))
	if err != nil {
		return diag.Errorf(node.Path, 0, 0, "%v", err)
	}
	hash := SeedHash(b, pl.p.Seed(n))
	node.CodeHash = hash
	fp := fingerprintOf(hash, pl.target, node.Relation, nil)
	exists := pl.opts.State.Exists(node.Relation)
	last, ok := pl.opts.State.Latest(n, "")
	emptied := exists && last.RowCount > 0 && pl.opts.State.Empty(node.Relation)
	current := ok && last.Status == "succeeded" && last.Inputs == fp && exists && !emptied
	// A seed's data version is its content: loading the same file twice
	// leaves the same rows, so readers need not rerun.
	pl.vers.model[n] = pl.stateVersion(n, "", exists)
	if !pl.chosen[n] || !pl.opts.Seeds {
		return nil
	}
	if pl.opts.Units != nil && !contains(pl.opts.Units, n) {
		return nil
	}
	forced := pl.opts.FullRefresh || pl.opts.Units != nil
	if (forced && !(ok && last.Status == "succeeded" && pl.resumed(last.RunID))) || (!forced && !current) {
		u := &plan.Unit{ID: n, Model: n, Seed: true, SeedPath: node.Path, CodeHash: hash, Inputs: fp, DataVersion: "s:" + hash}
		pl.plan.Units = append(pl.plan.Units, u)
		pl.unitsOf[n] = []*plan.Unit{u}
		pl.plan.UnitGraph.Add(u.ID)
		pl.vers.model[n] = u.DataVersion
		return nil
	}
	pl.plan.UpToDate = append(pl.plan.UpToDate, n)
	pl.plan.UpToDateCount++
	return nil
}

// candidates are the windows a model could run: the explicit ones, or every
// partition from start whose window begins before the logical time.
func (pl *planner) candidates(c *compiled) ([]*plan.Window, bool, error) {
	if pl.opts.Units != nil && pl.chosen[c.m.Name] {
		if ws, explicit, err := pl.listed(c); err != nil || len(ws) > 0 {
			return ws, explicit, err
		}
	}
	if c.cfg.PartitionBy == "" || c.cfg.Materialized != plan.Incremental {
		return []*plan.Window{nil}, false, nil
	}
	g := c.gran
	var out []*plan.Window
	add := func(ws []plan.Window) {
		for i := range ws {
			out = append(out, &ws[i])
		}
	}
	ex := pl.window
	switch {
	case ex != nil && ex.partition != "":
		t, err := partition.Parse(ex.partition, g)
		if err != nil {
			return nil, false, diag.Errorf("", 0, 0, "--partition: %v (model %s has %s partitions)", err, c.m.Name, g)
		}
		w := partition.Window(t, g)
		if err := pl.inRange(c, []plan.Window{w}, "--partition "+ex.partition); err != nil {
			return nil, false, err
		}
		return []*plan.Window{&w}, true, nil
	case ex != nil:
		if ex.start == "" || ex.end == "" {
			return nil, false, diag.Errorf("", 0, 0, "--start and --end go together: --start 2026-07-01 --end 2026-07-08 runs [start, end)")
		}
		a, err := partition.ParseBound(ex.start, g)
		if err != nil {
			return nil, false, diag.Errorf("", 0, 0, "--start: %v (model %s has %s partitions)", err, c.m.Name, g)
		}
		b, err := partition.ParseTime(ex.end)
		if err != nil {
			return nil, false, diag.Errorf("", 0, 0, "--end: %v", err)
		}
		if !b.After(a) {
			return nil, false, diag.Errorf("", 0, 0, "--end %s must be after --start %s (the range is half-open: [start, end))", ex.end, ex.start)
		}
		ws := partition.Range(a, b, g)
		if err := pl.inRange(c, ws, "--start "+ex.start+" --end "+ex.end); err != nil {
			return nil, false, err
		}
		add(ws)
		return out, true, nil
	}
	add(partition.Range(c.start, pl.opts.AsOf, g))
	return out, false, nil
}

// inRange refuses explicit windows of a selected model outside its
// partitions: before its start (which the model never owns, so a rebuild
// from scratch would not have them) or beginning at or after the logical
// time (data not yet complete). It names the valid range.
func (pl *planner) inRange(c *compiled, ws []plan.Window, asked string) error {
	if !pl.chosen[c.m.Name] || c.start.IsZero() || len(ws) == 0 {
		return nil
	}
	first, last := ws[0], ws[len(ws)-1]
	asOf := pl.opts.AsOf
	switch {
	case !c.start.Before(asOf):
		return diag.Errorf("", 0, 0, "%s: model %s starts at %s, after --as-of %s: it has no partition to build yet",
			asked, c.m.Name, partition.Key(c.start, c.gran), asOf.UTC().Format(time.RFC3339))
	case first.Start.Before(c.start) || !last.Start.Before(asOf):
		return diag.Errorf("", 0, 0, "%s: model %s has partitions %s to %s (from its start to the last one begun before --as-of %s); choose partitions in that range",
			asked, c.m.Name, partition.Key(c.start, c.gran), partition.Key(lastBegun(asOf, c.gran), c.gran), asOf.UTC().Format(time.RFC3339))
	}
	return nil
}

// lastBegun is the start of the last partition begun before t: what
// partition.Range(start, t, g) ends with, found without listing every
// partition since the start (that made each --partition cost O(history)).
func lastBegun(t time.Time, g string) time.Time {
	if p := partition.Truncate(t, g); p.Before(t) {
		return p
	}
	return partition.Truncate(t.Add(-time.Nanosecond), g)
}

// listed returns the model's units named in Options.Units, all forced.
func (pl *planner) listed(c *compiled) ([]*plan.Window, bool, error) {
	var out []*plan.Window
	for _, id := range pl.opts.Units {
		model, key, _ := strings.Cut(id, "/")
		if model != c.m.Name {
			continue
		}
		if key == "" {
			out = append(out, nil)
			continue
		}
		t, err := partition.Parse(key, c.gran)
		if err != nil {
			return nil, false, diag.Errorf("", 0, 0, "unit %s: %v", id, err)
		}
		w := partition.Window(t, c.gran)
		out = append(out, &w)
	}
	return out, true, nil
}
