package runner

import (
	"cmp"
	"context"
	"fmt"
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

// isRelease reports whether a cleanup step releases a session lock: those
// run only through unitState, once per take.
func isRelease(steps []plan.Step, s plan.Step) bool {
	for _, l := range steps {
		if l.Purpose == plan.Lock && l.Release != "" && l.Release == s.SQL {
			return true
		}
	}
	return false
}

// releaseLocks releases every session lock the unit still holds, even
// after an interrupt: a pooled connection must not keep one.
func releaseLocks(ctx context.Context, sess adapters.Session, st *unitState) {
	for len(st.held) > 0 {
		q := st.held[len(st.held)-1]
		st.held = st.held[:len(st.held)-1]
		_, _ = sess.Exec(context.WithoutCancel(ctx), q)
	}
}

// cleanup runs a failed unit's cleanup steps (temporary tables) and
// releases the session locks it took.
func cleanup(ctx context.Context, sess adapters.Session, steps []plan.Step, st *unitState) {
	for _, s := range steps {
		if s.Purpose == plan.Cleanup && !isRelease(steps, s) {
			_, _ = sess.Exec(ctx, s.SQL)
		}
	}
	releaseLocks(ctx, sess, st)
}

// lockResult reads a lock query's answer. A session lock (GET_LOCK) must
// answer 1: 0 is a timed-out wait, and NULL an error in which the lock was
// not taken. A transaction lock that waits returns nothing to read, unless
// it is a try-lock answering false.
func lockResult(s plan.Step, rows [][]string) error {
	v := ""
	if len(rows) > 0 && len(rows[0]) > 0 {
		v = rows[0][0]
	}
	switch {
	case v == "0" || v == "false":
		return fmt.Errorf("timed out waiting for the lock: the unit is %w", adapters.ErrLocked)
	case s.Release != "" && v != "1":
		return fmt.Errorf("the lock was not taken (%s returned %s, not 1): nothing was written; run again", firstLine(s.SQL), cmp.Or(v, "no row"))
	}
	return nil
}

// execSteps runs steps[from:] on the session and returns the first failure.
func (r *run) execSteps(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, steps []plan.Step, from int, ur *UnitResult, row *plan.AuditRow, st *unitState) *unitError {
	written := int64(-1) // rows reported by insert/merge steps; -1 unknown
	for i := from; i < len(steps); i++ {
		s := steps[i]
		switch s.Purpose {
		case plan.Validate, plan.CheckStep:
			cr, err := runCheck(ctx, sess, s)
			if err != nil {
				return &unitError{step: i + 1, purp: s.Purpose, err: err}
			}
			ur.Checks = append(ur.Checks, *cr)
			if cr.Status == CheckFail {
				return &unitError{step: i + 1, purp: s.Purpose, check: cr}
			}
			if err := r.o.AfterStep.after(ctx, u.ID, s.Purpose); err != nil {
				return &unitError{step: i + 1, purp: s.Purpose, err: err}
			}
			continue
		case plan.Lock:
			if ue := r.takeLock(ctx, sess, u, s, i, ur, st); ue != nil {
				return ue
			}
			continue
		case plan.AuditFinish:
			// Rows written: what the insert or merge reported, else a count.
			n := written
			if n < 0 {
				var err error
				if n, err = scalar(ctx, sess, s.Count); err != nil {
					return &unitError{step: i + 1, purp: s.Purpose, err: err}
				}
			}
			ur.Rows = n
			frow := *row
			frow.Status, frow.Ended, frow.Checks = "succeeded", time.Now().UTC(), checksJSON(ur.Checks)
			s.SQL = r.d.AuditFinish(r.state, &frow, strconv.FormatInt(n, 10))
		}
		var affected int64
		var err error
		if s.Purpose == plan.Cleanup && isRelease(steps, s) {
			// Released once per take, and only when this unit took it.
			if st.release(s.SQL) {
				_, _ = sess.Exec(context.WithoutCancel(ctx), s.SQL)
			}
		} else {
			affected, err = sess.Exec(ctx, s.SQL)
		}
		if err != nil {
			if s.Purpose == plan.Cleanup && !st.inTx {
				continue // best effort: the unit's work is committed
			}
			// Inside the transaction a failed statement may have aborted
			// it (PostgreSQL then answers COMMIT with a silent ROLLBACK):
			// the unit fails, or is retried, like any other step.
			return &unitError{step: i + 1, purp: s.Purpose, err: err}
		}
		switch s.Purpose {
		case plan.Insert, plan.Merge:
			if affected >= 0 && w.Materialized == plan.Incremental {
				written = max(written, 0) + affected
			}
		case plan.Begin:
			st.inTx = true
		case plan.Commit:
			st.inTx = false
		case plan.AuditStart:
			st.audited = true
		}
		if err := r.o.AfterStep.after(ctx, u.ID, s.Purpose); err != nil {
			return &unitError{step: i + 1, purp: s.Purpose, err: err}
		}
	}
	return nil
}

// takeLock runs a lock step. A lock that waits says so; one that times out
// fails the unit as locked by another run; a session lock is remembered
// for its release.
func (r *run) takeLock(ctx context.Context, sess adapters.Session, u *plan.Unit, s plan.Step, i int, ur *UnitResult, st *unitState) *unitError {
	t1 := time.Now()
	_, rows, err := sess.Query(ctx, s.SQL, 1)
	if err == nil {
		err = lockResult(s, rows)
	}
	if err != nil {
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	if s.Release != "" {
		st.held = append(st.held, s.Release)
	}
	if waited := time.Since(t1); waited > time.Second {
		ur.Note = fmt.Sprintf("waited %.1fs for another run holding this unit", waited.Seconds())
	}
	if err := r.o.AfterStep.after(ctx, u.ID, s.Purpose); err != nil {
		return &unitError{step: i + 1, purp: s.Purpose, err: err}
	}
	return nil
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

// runCheck runs a check query; any row is a failure.
func runCheck(ctx context.Context, s adapters.Session, step plan.Step) (*CheckResult, error) {
	c := step.Check
	cols, rows, err := s.Query(ctx, step.SQL, sqlgen.SampleLimit)
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", c.Name, err)
	}
	cr := &CheckResult{Name: c.Name, Severity: c.Severity, Status: CheckPass}
	if len(rows) == 0 {
		return cr, nil
	}
	cr.Status = CheckFail
	if c.Severity == "warn" {
		cr.Status = CheckWarn
	}
	for _, row := range rows {
		parts := make([]string, len(row))
		for i, v := range row {
			parts[i] = cols[i] + "=" + v
		}
		cr.Sample = append(cr.Sample, "("+strings.Join(parts, ", ")+")")
	}
	return cr, nil
}
