package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
)

// planner decides which units are stale. A unit runs when it is forced
// (--partition, --start/--end, --full-refresh), when it never succeeded with
// its current code, or when data it reads changed after it last succeeded:
// an upstream unit runs in this plan or succeeded later. Views pass their
// upstream's data through and rerun only for code. A table or unpartitioned
// incremental model that reads a source no seed loads always runs: idemc
// cannot see that data change. Partitioned models run their missing
// partitions plus lookback. An unpartitioned model that reads as_of or a
// watermark bound runs when the logical time moved past its last success.
// Everything else is up to date: a build right after a successful one, for
// the same logical time, writes nothing.
type planner struct {
	plan   *Plan
	models map[string]*compiled
	opts   Options
	window *explicitWindow
	chosen map[string]bool
	d      adapters.Dialect
	p      *project.Project
	state  adapters.State
	target string

	dataAt   map[string]time.Time // unit id → when its data last changed (forever: runs now)
	modelMax map[string]time.Time // model → latest dataAt of its units
	unitsOf  map[string][]*Unit
}

// forever marks data that changes in this run.
var forever = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

func (pl *planner) model(n string) error {
	node := pl.plan.Nodes[n]
	if node.Seed {
		return pl.seed(n, node)
	}
	c := pl.models[n]
	if c.cfg.Materialized == adapters.Ephemeral {
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
	ups := throughEphemeral(pl.plan.Graph, pl.models, n)
	run := make([]bool, len(cands))
	last := make([]time.Time, len(cands))
	newest := -1
	for i, w := range cands {
		key := ""
		if w != nil {
			key = w.Key
		}
		upAt := pl.upstreamData(ups, key, c)
		t, lastAsOf, ok := pl.opts.State.LastSuccess(n, key, c.hash)
		last[i] = t
		switch {
		case explicit || pl.opts.FullRefresh:
			run[i] = true
		case c.cfg.Materialized == adapters.View:
			run[i] = !ok
		case !ok || upAt.After(t):
			run[i] = true
		case c.external && w == nil:
			run[i] = true
		case w == nil && (c.tpl.UsesAsOf || c.tpl.UsesWindow) && pl.opts.AsOf.After(lastAsOf):
			// The logical time is an input of a watermark model (and of
			// any unpartitioned model reading as_of): rows may have come due.
			run[i] = true
		}
		if run[i] && w != nil && !explicit {
			newest = i
		}
		// A view's data is its upstream's; other units' is their own.
		pl.dataAt[UnitID(n, key)] = t
		if c.cfg.Materialized == adapters.View && upAt.After(t) {
			pl.dataAt[UnitID(n, key)] = upAt
		}
	}
	// lookback: the partitions before the newest stale one run too.
	if newest >= 0 {
		for i := newest - 1; i >= 0 && i >= newest-c.cfg.Lookback; i-- {
			run[i] = true
		}
	}
	if !pl.chosen[n] || !pl.opts.Models {
		pl.finish(n, cands)
		return nil
	}
	for i, w := range cands {
		if !run[i] {
			if w == nil || explicit || len(pl.plan.UpToDate) < maxUpToDate {
				pl.plan.UpToDate = append(pl.plan.UpToDate, UnitID(n, keyOf(w)))
			}
			pl.plan.UpToDateCount++
			continue
		}
		u := buildUnit(c, w, pl.opts, pl.d, pl.models, pl.plan.Nodes, pl.p, pl.state, pl.target)
		pl.add(u, ups, c)
	}
	pl.finish(n, cands)
	return nil
}

// maxUpToDate bounds the up-to-date units listed by name.
const maxUpToDate = 10000

func keyOf(w *adapters.Window) string {
	if w == nil {
		return ""
	}
	return w.Key
}

// add puts a unit in the plan, after the units it reads.
func (pl *planner) add(u *Unit, ups []string, c *compiled) {
	pl.plan.Units = append(pl.plan.Units, u)
	pl.unitsOf[u.Model] = append(pl.unitsOf[u.Model], u)
	pl.plan.UnitGraph.Add(u.ID)
	pl.dataAt[u.ID] = forever
	for _, up := range ups {
		for _, uu := range upstreamUnits(pl.unitsOf, pl.models, up, u.Partition, c) {
			pl.plan.UnitGraph.Connect(uu.ID, u.ID)
		}
	}
}

// finish records the latest data change among a model's units.
func (pl *planner) finish(n string, cands []*adapters.Window) {
	var max time.Time
	for _, w := range cands {
		if t := pl.dataAt[UnitID(n, keyOf(w))]; t.After(max) {
			max = t
		}
	}
	pl.modelMax[n] = max
}

// upstreamData is when the data a unit reads last changed: the same
// partition of a model partitioned alike, else the whole upstream model.
func (pl *planner) upstreamData(ups []string, key string, c *compiled) time.Time {
	var at time.Time
	for _, up := range ups {
		t := pl.modelMax[up]
		if uc := pl.models[up]; key != "" && uc != nil && uc.cfg.PartitionBy != "" && uc.gran == c.gran {
			t = pl.dataAt[UnitID(up, key)]
		}
		if t.After(at) {
			at = t
		}
	}
	return at
}

// seed plans a seed load when its file changed since it last succeeded.
func (pl *planner) seed(n string, node *Node) error {
	b, err := os.ReadFile(filepath.Join(pl.p.Root, node.Path))
	if err != nil {
		return diag.Errorf(node.Path, 0, 0, "%v", err)
	}
	hash := SeedHash(b, pl.p.Seed(n))
	node.CodeHash = hash
	t, _, ok := pl.opts.State.LastSuccess(n, "", hash)
	pl.dataAt[n] = t
	if pl.chosen[n] && pl.opts.Seeds {
		listed := pl.opts.Units == nil
		for _, id := range pl.opts.Units {
			listed = listed || id == n
		}
		if pl.opts.Units != nil && !listed {
			pl.modelMax[n] = pl.dataAt[n]
			return nil
		}
		if ok && !pl.opts.FullRefresh && pl.opts.Units == nil {
			pl.plan.UpToDate = append(pl.plan.UpToDate, n)
			pl.plan.UpToDateCount++
		} else {
			u := &Unit{ID: n, Model: n, Seed: true, SeedPath: node.Path, CodeHash: hash}
			pl.plan.Units = append(pl.plan.Units, u)
			pl.unitsOf[n] = []*Unit{u}
			pl.plan.UnitGraph.Add(u.ID)
			pl.dataAt[n] = forever
		}
	}
	pl.modelMax[n] = pl.dataAt[n]
	return nil
}

// candidates are the windows a model could run: the explicit ones, or every
// partition from start whose window begins before the logical time.
func (pl *planner) candidates(c *compiled) ([]*adapters.Window, bool, error) {
	if pl.opts.Units != nil && pl.chosen[c.m.Name] {
		return pl.listed(c)
	}
	if c.cfg.PartitionBy == "" || c.cfg.Materialized != adapters.Incremental {
		return []*adapters.Window{nil}, false, nil
	}
	g := c.gran
	var out []*adapters.Window
	add := func(ws []adapters.Window) {
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
		return []*adapters.Window{&w}, true, nil
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
		add(partition.Range(a, b, g))
		return out, true, nil
	}
	add(partition.Range(c.start, pl.opts.AsOf, g))
	return out, false, nil
}

// listed returns the model's units named in Options.Units, all forced.
func (pl *planner) listed(c *compiled) ([]*adapters.Window, bool, error) {
	var out []*adapters.Window
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
