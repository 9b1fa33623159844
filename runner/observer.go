package runner

import (
	"time"

	"github.com/idemc/idemc/plan"
)

// Observer is told what a run does while it runs: the JSON event log
// (--log-format json) is one. The runner calls an observer from one
// goroutine at a time, in order: RunStarted; then per unit UnitStarted and
// UnitFinished (a unit skipped because an upstream failed gets UnitFinished
// only; one an interrupt kept from starting gets neither, and RunFinished's
// result counts it); then RunFinished. An observer
// cannot fail a run: it handles its own errors.
type Observer interface {
	RunStarted(RunInfo)
	UnitStarted(u *plan.Unit, at time.Time)
	UnitFinished(u *plan.Unit, ur *UnitResult, at time.Time)
	RunFinished(res *Result, at time.Time)
}

// RunInfo describes a run as it starts, once its plan is made.
type RunInfo struct {
	RunID   string
	Command string // build, run, seed, retry
	Project string
	Target  string
	Engine  string
	AsOf    time.Time
	Started time.Time
	// Plan is the plan the run executes (its nodes, graph and units).
	Plan *plan.Plan
}

// observers calls every observer of Options in turn, under the run's
// observer lock so that events of concurrent units never interleave.
func (r *run) observe(f func(Observer)) {
	if len(r.o.Observers) == 0 {
		return
	}
	r.obsMu.Lock()
	defer r.obsMu.Unlock()
	for _, o := range r.o.Observers {
		f(o)
	}
}

func (r *run) observeStart(pl *plan.Plan) {
	info := RunInfo{RunID: r.res.RunID, Command: commandName(r.o.Command), Project: r.p.Name, Target: pl.Target,
		Engine: pl.Engine, AsOf: pl.AsOf, Started: r.res.Started, Plan: pl}
	r.observe(func(o Observer) { o.RunStarted(info) })
}

func (r *run) observeUnitStart(u *plan.Unit) {
	now := time.Now().UTC()
	r.observe(func(o Observer) { o.UnitStarted(u, now) })
}

func (r *run) observeUnitEnd(ur *UnitResult) {
	if len(r.o.Observers) == 0 {
		return
	}
	u := r.units[ur.ID]
	now := time.Now().UTC()
	r.observe(func(o Observer) { o.UnitFinished(u, ur, now) })
}

func (r *run) observeEnd() {
	now := time.Now().UTC()
	r.observe(func(o Observer) { o.RunFinished(r.res, now) })
}

func commandName(c string) string {
	if c == "" {
		return "build"
	}
	return c
}
