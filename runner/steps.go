package runner

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// unitState is what a unit's steps have done so far.
type unitState struct {
	inTx    bool     // a transaction is open
	audited bool     // the running audit row was written
	held    []string // release statements of the session locks taken, one per take
}

// release forgets one take of the session lock that q releases, and
// reports whether the unit held it (a recipe's release step for a lock
// already released, or never taken, must not run).
func (st *unitState) release(q string) bool {
	for i := len(st.held) - 1; i >= 0; i-- {
		if st.held[i] == q {
			st.held = append(st.held[:i], st.held[i+1:]...)
			return true
		}
	}
	return false
}

// rollback ends a failed unit's transaction (a step of its own purpose:
// BigQuery discards its buffered script instead of running anything).
func rollback(ctx context.Context, sess adapters.Session, d adapters.Dialect) {
	_, _ = sess.Exec(ctx, &plan.Step{Purpose: plan.Rollback, SQL: d.Rollback()})
}

// releaseLocks releases every session lock the unit still holds, even
// after an interrupt: a pooled connection must not keep one.
func releaseLocks(ctx context.Context, sess adapters.Session, st *unitState) {
	for len(st.held) > 0 {
		q := st.held[len(st.held)-1]
		st.held = st.held[:len(st.held)-1]
		_, _ = sess.Exec(context.WithoutCancel(ctx), &plan.Step{Purpose: plan.Cleanup, Comment: "release the unit's lock", SQL: q})
	}
}

// cleanup runs a failed unit's cleanup steps (temporary tables) and
// releases the session locks it took.
func cleanup(ctx context.Context, sess adapters.Session, steps []plan.Step, st *unitState) {
	for i := range steps {
		if steps[i].Purpose == plan.Cleanup && !sqlgen.IsRelease(steps, steps[i]) {
			_, _ = sess.Exec(ctx, &steps[i])
		}
	}
	releaseLocks(ctx, sess, st)
}

// execSteps runs steps[from:] on the session and returns the first failure.
func (r *run) execSteps(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, steps []plan.Step, from int, ur *UnitResult, row *plan.AuditRow, st *unitState) *unitError {
	x := &stepRun{r: r, ctx: ctx, sess: sess, u: u, w: w, steps: steps, ur: ur, st: st, written: -1}
	for i := from; i < len(steps); i++ {
		if ue := x.step(i); ue != nil {
			return ue
		}
	}
	return nil
}

// stepRun is one execSteps call: its unit and what its steps told so far.
type stepRun struct {
	r     *run
	ctx   context.Context
	sess  adapters.Session
	u     *plan.Unit
	w     *plan.Write
	steps []plan.Step
	ur    *UnitResult
	st    *unitState

	written int64 // rows reported by insert/merge steps; -1 unknown
	// scripted: the audit finish was buffered into a script (BigQuery),
	// whose commit reports the rows its writes affected.
	scripted bool
	fill     map[string]string // the audit_finish slots' values, for its latest_end too
}

// step runs steps[i]: a check or a lock its own way, a running row the
// run's claim committed not at all, any other statement as it is, its
// slots filled.
func (x *stepRun) step(i int) *unitError {
	s := x.steps[i] // a copy: its slots are filled in it
	switch s.Purpose {
	case plan.Validate, plan.CheckStep:
		return x.check(i, s)
	case plan.Lock:
		return x.r.takeLock(x.ctx, x.sess, x.u, s, i, x.ur, x.st)
	case plan.AuditStart, plan.LatestStart:
		if x.st.audited {
			return x.after(i, s) // the run's claim committed this row (claims.go)
		}
	case plan.AuditFinish:
		if err := x.finish(&s); err != nil {
			return &unitError{step: i + 1, purp: s.Purpose, err: err}
		}
	case plan.LatestEnd:
		s.SQL = s.Fill(x.fill)
	}
	res, err := x.send(&s)
	if s.Purpose == plan.Commit {
		if ue := settleDeferred(x.ur, err, i); ue != nil {
			return ue
		}
	}
	if err != nil {
		if s.Purpose == plan.Cleanup && !x.st.inTx {
			return nil // best effort: the unit's work is committed
		}
		// Inside the transaction a failed statement may have aborted
		// it (PostgreSQL then answers COMMIT with a silent ROLLBACK):
		// the unit fails, or is retried, like any other step.
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	x.record(s, res)
	return x.after(i, s)
}

// check runs a check step; a failing check fails the unit.
func (x *stepRun) check(i int, s plan.Step) *unitError {
	cr, err := runCheck(x.ctx, x.sess, s)
	if err != nil {
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	x.ur.Checks = append(x.ur.Checks, *cr)
	if cr.Status == CheckFail {
		return &unitError{step: i + 1, purp: s.Purpose, check: cr}
	}
	return x.after(i, s)
}

// finish fills the audit_finish step's slots: the rows written (what the
// insert or merge reported, else a count), the end time and the checks.
func (x *stepRun) finish(s *plan.Step) error {
	n := x.written
	if n < 0 {
		var err error
		if n, err = scalar(x.ctx, x.sess, s.Count); err != nil {
			return err
		}
	}
	x.ur.Rows = n
	x.scripted = s.Deferred && x.written < 0
	// Checks buffered in a script are recorded as they will be once it
	// commits (which this statement is part of).
	x.fill = map[string]string{plan.SlotRows: strconv.FormatInt(n, 10),
		plan.SlotEndedAt: x.r.d.Timestamp(time.Now().UTC()), plan.SlotChecks: x.r.checksLiteral(committed(x.ur.Checks))}
	s.SQL = s.Fill(x.fill)
	return nil
}

// send sends a statement: a lock's release once per take, and only when
// this unit took it; a shared state statement outside the transaction
// retried after a conflict.
func (x *stepRun) send(s *plan.Step) (plan.Result, error) {
	if s.Purpose == plan.Cleanup && sqlgen.IsRelease(x.steps, *s) {
		if x.st.release(s.SQL) {
			_, _ = x.sess.Exec(context.WithoutCancel(x.ctx), s)
		}
		return plan.Result{}, nil
	}
	res, err := x.sess.Exec(x.ctx, s)
	if err != nil && !x.st.inTx && sharedStateStep(s.Purpose) {
		res, err = x.r.retryShared(x.ctx, x.sess, s, err)
	}
	return res, err
}

// record notes what a statement that ran says about the unit: rows
// written, the transaction begun or committed, the running row written.
func (x *stepRun) record(s plan.Step, res plan.Result) {
	switch {
	case s.Purpose == plan.Insert || s.Purpose == plan.Merge || s.Counts:
		if res.Affected >= 0 && (x.w.Materialized == plan.Incremental || x.w.Materialized == plan.Table) {
			x.written = max(x.written, 0) + res.Affected
		}
	case s.Purpose == plan.Begin:
		x.st.inTx = true
	case s.Purpose == plan.Commit:
		x.st.inTx = false
		if x.scripted && res.Affected >= 0 {
			x.ur.Rows = res.Affected
		}
	case s.Purpose == plan.AuditStart:
		x.st.audited = true
	}
}

// after runs the fault hook after a step (tests and fault trials).
func (x *stepRun) after(i int, s plan.Step) *unitError {
	if err := x.r.o.AfterStep.after(x.ctx, x.u.ID, s.Purpose); err != nil {
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	return nil
}

// takeLock runs a lock step. The engine takes the lock: an error wrapping
// adapters.ErrLocked (a timed-out wait, a lock not taken) fails the unit as
// locked by another run, with nothing written. A lock that waits says so;
// a session lock is remembered for its release.
func (r *run) takeLock(ctx context.Context, sess adapters.Session, u *plan.Unit, s plan.Step, i int, ur *UnitResult, st *unitState) *unitError {
	t1 := time.Now()
	var err error
	var waited time.Duration
	if s.Lock != nil && s.Lock.Claim != nil {
		// Released whatever happens: a claim may have committed before
		// the step failed, and deleting a row the run lacks is harmless.
		st.held = append(st.held, s.Lock.Release)
		waited, err = r.takeClaim(ctx, sess, s)
	} else {
		// A session lock's statement returns when the lock is free:
		// its time is the wait.
		_, err = sess.Exec(ctx, &s)
		waited = time.Since(t1)
		if err == nil && s.Lock != nil && s.Lock.Release != "" {
			st.held = append(st.held, s.Lock.Release)
		}
	}
	if err != nil {
		if errors.Is(err, adapters.ErrLocked) {
			err = fmt.Errorf("nothing was written; run it again once the other run is done: %w", err)
		}
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	if waited > time.Second {
		ur.Note = fmt.Sprintf("waited %.1fs for another run holding this unit", waited.Seconds())
	}
	if err := r.o.AfterStep.after(ctx, u.ID, s.Purpose); err != nil {
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	return nil
}

// settleDeferred gives the checks buffered into a script (Step.Deferred)
// their outcome once the script ran: every one passed when it committed;
// when it failed on a check's assertion (adapters.CheckFailed), the checks
// before that one passed, it failed, and the unit fails with it; the ones
// after it never ran and stay deferred. A commit that failed otherwise
// leaves them deferred: the unit fails with the commit's error.
func settleDeferred(ur *UnitResult, err error, i int) *unitError {
	var cf *adapters.CheckFailed
	if err != nil && !errors.As(err, &cf) {
		return nil
	}
	stop := len(ur.Checks) // the failed check's index; all of them when committed
	if cf != nil {
		stop = slices.IndexFunc(ur.Checks, func(c CheckResult) bool { return c.Status == CheckDeferred && c.Name == cf.Check })
		if stop < 0 {
			return &unitError{step: i + 1, purp: plan.Commit, err: err} // an assertion no check of this unit made
		}
	}
	for j := range ur.Checks[:stop] {
		if ur.Checks[j].Status == CheckDeferred {
			ur.Checks[j].Status = CheckPass
		}
	}
	if cf == nil {
		return nil
	}
	failed := &ur.Checks[stop]
	failed.Status = CheckFail
	if len(cf.Sample) > 0 {
		failed.Sample = cf.Sample
	}
	return &unitError{step: i + 1, purp: plan.Commit, check: failed}
}

// committed is the checks as a succeeded unit's audit row records them: a
// deferred check is in the script's own audit row, which commits only if
// its assertion held.
func committed(cs []CheckResult) []CheckResult {
	out := append([]CheckResult(nil), cs...)
	for i := range out {
		if out[i].Status == CheckDeferred {
			out[i].Status = CheckPass
		}
	}
	return out
}

// scalar evaluates a count query ("" means no rows were written).
func scalar(ctx context.Context, s adapters.Session, q string) (int64, error) {
	if q == "" {
		return 0, nil
	}
	_, rows, err := s.Query(ctx, q, 1)
	if err != nil || len(rows) == 0 {
		return 0, err
	}
	return strconv.ParseInt(rows[0][0], 10, 64)
}

// runCheck runs a check step; any row the engine returns is a failure. A
// deferred check (an assertion buffered into a script) has no verdict yet:
// settleDeferred gives it one when the script ran.
func runCheck(ctx context.Context, s adapters.Session, step plan.Step) (*CheckResult, error) {
	c := step.Check
	res, err := s.Exec(ctx, &step)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", c.Name, err)
	}
	cr := &CheckResult{Name: c.Name, Severity: c.Severity, Status: CheckPass}
	switch {
	case step.Deferred:
		cr.Status = CheckDeferred
		return cr, nil
	case len(res.Rows) == 0:
		return cr, nil
	}
	cr.Status = CheckFail
	if c.Severity == "warn" {
		cr.Status = CheckWarn
	}
	for _, row := range res.Rows {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = res.Columns[i] + "=" + v
		}
		cr.Sample = append(cr.Sample, "("+strings.Join(parts, ", ")+")")
	}
	return cr, nil
}

// sharedStateStep: a statement on the state tables every unit shares (its
// audit row, its high-water mark), idempotent on its own.
func sharedStateStep(p plan.Purpose) bool {
	return p == plan.AuditStart || p == plan.AuditFinish || p == plan.StateStep || p == plan.LatestStart || p == plan.LatestEnd
}

// sharedRetryBudget bounds retrySharedStep: Delta's commits of concurrent
// units conflict on the one audit table, and a local Spark takes seconds
// per commit while several units contend, so the budget is minutes, not a
// few tries (each round, one of the contenders commits).
const sharedRetryBudget = 3 * time.Minute

// retryShared runs again, alone and after a jittered backoff, a state
// statement outside a transaction (Spark) that lost to a concurrent
// writer of the shared table: the engine says it committed nothing, and
// redoing the whole unit for it would redo the publish too.
func (r *run) retryShared(ctx context.Context, sess adapters.Session, s *plan.Step, err error) (plan.Result, error) {
	deadline := time.Now().Add(sharedRetryBudget)
	wait := 100 * time.Millisecond
	for retryable(r.eng, err) && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(wait/2 + rand.N(wait))
		wait = min(2*wait, 4*time.Second)
		var res plan.Result
		if res, err = sess.Exec(ctx, s); err == nil {
			return res, nil
		}
	}
	return plan.Result{}, err
}

// execState runs an audit statement outside a unit's recipe (a seed's
// rows, a failed unit's row), retried alone like retryShared.
func (r *run) execState(ctx context.Context, sess adapters.Session, q string) error {
	s := &plan.Step{SQL: q}
	_, err := sess.Exec(ctx, s)
	if err != nil {
		_, err = r.retryShared(ctx, sess, s, err)
	}
	return err
}
