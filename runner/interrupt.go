package runner

import (
	"context"
	"errors"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/plan"
)

// An interrupt (SIGINT, SIGTERM: the build's context is cancelled) ends a
// run as interrupted, not failed (DESIGN §10). A unit in flight rolls back
// and its audit row becomes abandoned — the status DESIGN §9 gives a unit
// whose run ended without finishing it, so planning and retry treat it as a
// killed run's unit — with an error saying it was interrupted. Units that
// had not started stay without an audit row and are counted, not listed.

// UnitStatus is what a unit did in a run (UnitResult, run_results.json).
type UnitStatus string

// Unit statuses.
const (
	StatusSucceeded UnitStatus = "succeeded"
	StatusFailed    UnitStatus = "failed"
	// StatusSkipped: an upstream unit failed, so the unit did not run.
	StatusSkipped UnitStatus = "skipped"
	// StatusInterrupted: the unit was running when the run was interrupted;
	// its write was rolled back and its audit row says abandoned.
	StatusInterrupted UnitStatus = "interrupted"
	// StatusNotStarted: the run was interrupted before the unit started.
	StatusNotStarted UnitStatus = "not_started"
)

// CheckStatus is a check's or a test's outcome.
type CheckStatus string

// Check statuses.
const (
	CheckPass CheckStatus = "pass"
	CheckFail CheckStatus = "fail" // an error check found rows: the unit failed
	CheckWarn CheckStatus = "warn" // a warn check found rows: recorded, not failed
	// CheckDeferred: the check is an assertion buffered into a script
	// (BigQuery's transaction) that has not run yet; it becomes pass or fail
	// when the script does, and stays deferred when the script stopped
	// before it.
	CheckDeferred CheckStatus = "deferred"
)

// Outcomes of a run, in Result.Outcome and target/run_results.json.
const (
	OutcomeSucceeded   = "succeeded"
	OutcomeFailed      = "failed"
	OutcomeInterrupted = "interrupted"
)

// interruptGrace bounds what an interrupted unit still does (rollback,
// cleanup, its audit row): the user asked to stop, so it must not hang on
// an unreachable server. A second Ctrl-C exits at once anyway.
const interruptGrace = 5 * time.Second

// interruptedMsg is the audit error of a unit rolled back by an interrupt.
const interruptedMsg = "interrupted: the run was stopped (SIGINT or SIGTERM) before this unit committed; its write was rolled back"

// errStopped tells the walk that a unit did not complete because of the
// interrupt, so that what depends on it counts as not started.
var errStopped = errors.New("the run was interrupted")

// graceContext is a context that is not cancelled by the interrupt, bounded
// by interruptGrace.
func graceContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), interruptGrace)
}

// interrupted rolls back a unit stopped by the interrupt and records its
// audit row as abandoned. A driver may close the connection of a cancelled
// statement, so the audit row falls back to a fresh session: it must not be
// left running.
func (r *run) interrupted(ctx context.Context, sess adapters.Session, steps []plan.Step, row *plan.AuditRow, st *unitState, ur *UnitResult) {
	gctx, cancel := graceContext(ctx)
	defer cancel()
	if st.inTx {
		rollback(gctx, sess, r.d)
		st.inTx = false
	}
	cleanup(gctx, sess, steps, st)
	ur.Status, ur.Error = StatusInterrupted, interruptedMsg
	r.abandonRow(gctx, sess, row, st.audited)
}

// abandonRow writes the unit's audit row as abandoned (inserting its
// running row first when the unit had not written it yet).
func (r *run) abandonRow(ctx context.Context, sess adapters.Session, row *plan.AuditRow, audited bool) {
	frow := *row
	frow.Status, frow.Ended, frow.Error = "abandoned", time.Now().UTC(), interruptedMsg
	var stmts []string
	if !audited {
		stmts = append(stmts, r.startSQL(row)...)
	}
	stmts = append(stmts, r.finishSQL(&frow, "")...)
	var fresh adapters.Session
	defer func() {
		if fresh != nil {
			fresh.Close()
		}
	}()
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(ctx, sess, q); err == nil {
			continue
		}
		if fresh == nil {
			var err error
			if fresh, err = r.eng.Session(ctx); err != nil {
				return // the next run marks the row abandoned
			}
			sess = fresh
		}
		_, _ = adapters.ExecSQL(ctx, sess, q)
	}
}

// stopped reports whether a unit the walk did not run was kept from
// starting by the interrupt (rather than skipped after a real failure): it
// was cancelled before it started, or the root of its skip was stopped too.
func stopped(w dag.Result, results map[string]*UnitResult) bool {
	if w.Status == dag.Failed {
		return errors.Is(w.Err, errStopped)
	}
	if w.SkippedBecause == "" {
		return true // the walk stopped: context cancelled
	}
	root := results[w.SkippedBecause]
	return root == nil || root.Status == StatusInterrupted || root.Status == StatusNotStarted
}

// notStarted is the result of a unit the interrupt kept from starting.
func notStarted(u *plan.Unit) *UnitResult {
	return &UnitResult{ID: u.ID, Model: u.Model, Partition: u.Partition, Kind: kindOf(u), Status: StatusNotStarted}
}
