package runner

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// unitError is a failed unit: the step that failed and why.
type unitError struct {
	step  int
	purp  plan.Purpose
	check *CheckResult
	err   error
}

func (e *unitError) Error() string {
	if e.check != nil {
		msg := fmt.Sprintf("check %s failed", e.check.Name)
		if len(e.check.Sample) > 0 {
			msg += ": " + strings.Join(e.check.Sample, "; ")
		}
		return msg
	}
	return fmt.Sprintf("step %d (%s): %v", e.step, e.purp, e.err)
}

// runUnit runs one unit on its own session and reports what it did. It
// never returns an error: a failure is in the result, the write is rolled
// back and the audit row says failed.
func (r *run) runUnit(ctx context.Context, u *plan.Unit) *UnitResult {
	t0 := time.Now()
	ur := &UnitResult{ID: u.ID, Model: u.Model, Partition: u.Partition, Kind: kindOf(u), Attempted: true}
	defer func() {
		ur.Seconds = time.Since(t0).Seconds()
		r.line(ur)
	}()
	sess, err := r.eng.Session(ctx)
	if err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		if ctx.Err() != nil {
			ur.Status, ur.Error, ur.Attempted = StatusNotStarted, "", false
		}
		return ur
	}
	defer sess.Close()
	sess = &counting{Session: sess, n: &r.statements}
	if r.trace != nil {
		sess = &tracing{Session: sess, w: r.trace, unit: u.ID}
	}
	if u.Seed {
		r.runSeed(ctx, sess, u, ur)
		return ur
	}
	row := &plan.AuditRow{RunID: r.res.RunID, Job: u.Model, Partition: u.Partition, CodeHash: u.CodeHash,
		GitCommit: u.Write.Audit.GitCommit, Target: r.pl.Target, AsOf: r.pl.AsOf, Started: time.Now().UTC(),
		Attempt: r.db.nextAttempt(u.Model, u.Partition), Inputs: u.Inputs, DataVersion: u.DataVersion}
	w := *u.Write
	w.Audit = row
	st := &unitState{}
	var steps []plan.Step // what the failure path cleans up after
	fail := func(e *unitError) { r.failUnit(ctx, sess, u, &w, steps, row, st, ur, e) }

	steps, begin, release, ue := r.ddlPhase(ctx, sess, u, &w, ur)
	defer release()
	if ue != nil {
		fail(ue)
		return ur
	}

	// The transactional part is retried when the engine reports a
	// retryable conflict (a deadlock, a serialization failure): it was
	// rolled back, so running it again is safe.
	for attempt := 1; ; attempt++ {
		ue := r.execSteps(ctx, sess, u, &w, steps, begin, ur, row, st)
		if ue == nil {
			ur.Status = StatusSucceeded
			return ur
		}
		if attempt < maxTxAttempts && ue.check == nil && ctx.Err() == nil && retryable(r.eng, ue.err) {
			if st.inTx {
				_, _ = sess.Exec(context.WithoutCancel(ctx), r.d.Rollback())
				st.inTx = false
			}
			// The retry takes its locks again: session locks count
			// re-entries, so release this attempt's first.
			releaseLocks(ctx, sess, st)
			ur.Checks = nil
			ur.Note = fmt.Sprintf("retried after a conflict with a concurrent transaction (%v)", firstLine(ue.err.Error()))
			if begin < len(steps) && steps[begin].Purpose == plan.AuditStart {
				begin++ // the running row is already there
			}
			time.Sleep(time.Duration(attempt*attempt) * 50 * time.Millisecond)
			continue
		}
		fail(ue)
		return ur
	}
}

// failUnit rolls a failed unit back, runs its cleanup steps and records
// its audit row as failed (or, after an interrupt, abandoned).
func (r *run) failUnit(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, steps []plan.Step, row *plan.AuditRow, st *unitState, ur *UnitResult, e *unitError) {
	if ctx.Err() != nil {
		// Whatever failed, the user stopped the run: roll back and
		// say interrupted, not failed.
		r.interrupted(ctx, sess, steps, row, st, ur)
		return
	}
	if st.inTx {
		_, _ = sess.Exec(context.WithoutCancel(ctx), r.d.Rollback())
	}
	// Session locks and temporary tables must not outlive the unit on
	// a pooled connection.
	cleanup(context.WithoutCancel(ctx), sess, steps, st)
	ur.Status = StatusFailed
	ur.Error = e.Error()
	ur.SQLFile = compiledPath(u)
	if steps == nil {
		// It failed before its recipe was built: the file shows the
		// recipe it would have run.
		r.recordRecipe(u, w, r.d.Recipe(w))
	}
	if !st.audited {
		// The unit failed before its running row: record it now, so
		// every attempt has its row.
		_, _ = sess.Exec(context.WithoutCancel(ctx), r.d.AuditStart(r.state, row))
	}
	frow := *row
	frow.Status, frow.Ended, frow.Error = "failed", time.Now().UTC(), ur.Error
	frow.Checks = checksJSON(ur.Checks)
	_, _ = sess.Exec(context.WithoutCancel(ctx), r.d.AuditFinish(r.state, &frow, ""))
}

// ddlPhase runs a unit's idempotent statements before its transaction,
// serialized per relation, then reads the batch's columns and applies
// on_schema_change. It returns the unit's recipe, built with the batch's
// real columns, the index of its first step after the DDL phase and the
// release of the relation's DDL lock; on failure, the recipe as far as it
// was built. Schema changes that run in the unit's transaction (schemaDDL)
// keep the lock until the unit ends, so that the other units of the
// relation read its columns only once the change committed or rolled back.
func (r *run) ddlPhase(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, ur *UnitResult) ([]plan.Step, int, func(), *unitError) {
	lock := r.ddlLock(w.Target)
	lock.Lock()
	steps, i, hold, ue := r.ddlSteps(ctx, sess, u, w, ur)
	if ue != nil || !hold {
		lock.Unlock()
		return steps, i, func() {}, ue
	}
	return steps, i, lock.Unlock, nil
}

// ddlSteps is ddlPhase under the relation's lock: it resolves what the
// unit's recipe depends on and builds it once (resolveRecipe), writes it to
// target/compiled (what runs is what the file says), then runs its prepare
// steps; hold says the recipe changes the relation's schema, so the lock is
// kept until the unit ends.
func (r *run) ddlSteps(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, ur *UnitResult) ([]plan.Step, int, bool, *unitError) {
	steps, hold, ue := r.resolveRecipe(ctx, sess, w, ur)
	if ue != nil {
		return steps, 0, false, ue
	}
	u.Steps = steps
	r.recordRecipe(u, w, steps)
	i := 0
	for ; i < len(steps) && steps[i].Purpose == plan.Prepare; i++ {
		err := execIdempotent(ctx, r.eng, sess, steps[i].SQL)
		if err == nil {
			err = r.o.AfterStep.after(ctx, u.ID, steps[i].Purpose)
		}
		if err != nil {
			return steps, i, false, &unitError{step: i + 1, purp: steps[i].Purpose, err: err}
		}
	}
	return steps, i, hold, nil
}

// resolveRecipe reads what a unit's recipe depends on — whether the
// destination changes kind, the batch's columns and how on_schema_change
// changes the destination's, whether a view's columns changed — and then
// builds the recipe, once. Reading comes first, before any of the recipe
// runs: its prepare steps create a missing destination with the batch's
// columns, which leaves nothing to change. hold says the recipe changes
// the relation's schema.
func (r *run) resolveRecipe(ctx context.Context, sess adapters.Session, w *plan.Write, ur *UnitResult) ([]plan.Step, bool, *unitError) {
	schemaErr := func(err error) ([]plan.Step, bool, *unitError) {
		return nil, false, &unitError{step: 1, purp: plan.SchemaStep, err: err}
	}
	ddl := r.newSchemaDDL(sess, w)
	if steps, err := r.kindChangeRecipe(ctx, sess, ddl, w); steps != nil || err != nil {
		if err != nil {
			return schemaErr(err)
		}
		return steps, true, nil
	}
	if w.Materialized == plan.Incremental || w.Materialized == plan.Table && r.ad.Capabilities.TableInPlace {
		cols, note, err := r.syncSchema(ctx, sess, ddl, w)
		if err != nil {
			return schemaErr(err)
		}
		w.Columns = cols
		ur.Note = cmp.Or(note, ur.Note)
	}
	if w.Materialized == plan.View && r.views != nil {
		note, err := r.syncView(ctx, sess, w)
		if err != nil {
			return schemaErr(err)
		}
		ur.Note = cmp.Or(note, ur.Note)
	}
	recipe := r.d.Recipe(w)
	switch ab, _ := r.d.(adapters.AsideBuilder); {
	case len(ddl.steps) == 0:
		return recipe, false, nil
	case ddl.aside:
		// An unpartitioned full refresh rewrites every row: its copy
		// starts empty, so a type its old values cannot take is no error.
		copyRows := !ddl.emptyCopy && !(w.FullRefresh && w.Window == nil)
		np := leadingPrepare(recipe)
		return append(recipe[:np:np], r.asideSteps(ab, w, recipe, ddl.steps, copyRows)...), true, nil
	default:
		return spliceSchema(recipe, leadingPrepare(recipe), ddl.withPrepare(recipe)), true, nil
	}
}

// kindChangeRecipe is the recipe of a unit whose destination changes kind
// (a view becomes a table or the other way round, or the planner's
// Write.Replace), nil when it does not: replaced inside the unit's
// transaction where DDL is transactional, its prepare steps moved there
// too; built aside and swapped in on a KindSwapper dialect.
func (r *run) kindChangeRecipe(ctx context.Context, sess adapters.Session, ddl *schemaDDL, w *plan.Write) ([]plan.Step, error) {
	if ddl.deferred {
		drop, err := r.kindChange(ctx, sess, w)
		if err != nil || drop == "" {
			return nil, err
		}
		if w.Materialized != plan.View {
			if err := r.describeBatch(ctx, sess, w); err != nil {
				return nil, err
			}
		}
		recipe := r.d.Recipe(w)
		np := leadingPrepare(recipe)
		if err := r.replaceKind(ctx, sess, ddl, w, drop, recipe[:np]); err != nil {
			return nil, err
		}
		return spliceSchema(recipe[np:], 0, ddl.steps), nil
	}
	ks, ok := r.d.(adapters.KindSwapper)
	// (A table recipe that rebuilds in place, or replaces with CREATE OR
	// REPLACE (Spark), finds the view in its way; MySQL's builds every
	// table aside and swaps it in with a RENAME that takes views.)
	if !ok || w.Materialized == plan.Table && !r.ad.Capabilities.TableInPlace && !r.ad.Capabilities.ReplaceDefinition {
		return nil, nil
	}
	have, err := r.destKind(ctx, sess, ks, w)
	if err != nil {
		return nil, err
	}
	drop := r.kindChangeFrom(have, w)
	if drop == "" {
		return nil, nil
	}
	old := r.asideOf(w.Target, "__idemc_old")
	dropOld := r.d.DropTable(old)
	if have == "view" {
		dropOld = "DROP VIEW IF EXISTS " + r.d.Qualify(old)
	}
	return r.kindSwapSteps(ks, w, have == "view", dropOld), nil
}

// describeBatch sets the write's columns to the batch's, as the engine
// describes the model's SELECT.
func (r *run) describeBatch(ctx context.Context, sess adapters.Session, w *plan.Write) error {
	batch, err := sess.Columns(ctx, r.d.DescribeQuery(w.Select))
	if err != nil {
		return err
	}
	w.Columns = make([]string, len(batch))
	for j, c := range batch {
		w.Columns[j] = c.Name
	}
	return nil
}

// leadingPrepare counts a recipe's prepare steps, which come first.
func leadingPrepare(steps []plan.Step) int {
	i := 0
	for i < len(steps) && steps[i].Purpose == plan.Prepare {
		i++
	}
	return i
}

// maxTxAttempts bounds retries of a unit's transaction after conflicts.
const maxTxAttempts = 4

// retryable asks the engine whether an error is a transient conflict.
func retryable(e adapters.Engine, err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrConflict) {
		return true
	}
	if r, ok := e.(interface{ Retryable(error) bool }); ok {
		return r.Retryable(err)
	}
	return false
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

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
			s.SQL = s.Fill(map[string]string{plan.SlotRows: strconv.FormatInt(n, 10),
				plan.SlotEndedAt: r.d.Timestamp(time.Now().UTC()), plan.SlotChecks: r.checksLiteral(ur.Checks)})
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

// checksLiteral is the checks' results as the audit row's checks value.
func (r *run) checksLiteral(cs []CheckResult) string {
	if len(cs) == 0 {
		return "NULL"
	}
	return r.d.String(checksJSON(cs))
}

func checksJSON(cs []CheckResult) string {
	if len(cs) == 0 {
		return ""
	}
	b, _ := json.Marshal(cs)
	return string(b)
}

// runSeed loads a CSV in bulk and records it in the audit table.
func (r *run) runSeed(ctx context.Context, sess adapters.Session, u *plan.Unit, ur *UnitResult) {
	row := &plan.AuditRow{RunID: r.res.RunID, Job: u.Model, CodeHash: u.CodeHash, Target: r.pl.Target, AsOf: r.pl.AsOf, Started: time.Now().UTC(),
		Attempt: r.db.nextAttempt(u.Model, ""), Inputs: u.Inputs, DataVersion: u.DataVersion}
	if _, err := sess.Exec(ctx, r.d.AuditStart(r.state, row)); err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		if ctx.Err() != nil {
			r.interrupted(ctx, sess, nil, row, &unitState{}, ur)
		}
		return
	}
	node := r.pl.Nodes[u.Model]
	var n int64
	s := r.p.Seed(u.Model)
	err := fmt.Errorf("seed %s was not parsed when the project loaded", u.Model) // only a project built by hand
	if s != nil && s.Table != nil {
		n, err = r.eng.LoadSeed(ctx, node.Relation, s.Table)
	}
	frow := *row
	frow.Ended = time.Now().UTC()
	if err != nil && ctx.Err() != nil {
		// A load replaces the table in its last statement: interrupted, it
		// left the table as it was.
		r.interrupted(ctx, sess, nil, row, &unitState{audited: true}, ur)
		return
	}
	if err != nil {
		ur.Status, ur.Error = StatusFailed, fmt.Sprintf("loading %s: %v", u.SeedPath, err)
		frow.Status, frow.Error = "failed", ur.Error
		_, _ = sess.Exec(context.WithoutCancel(ctx), r.d.AuditFinish(r.state, &frow, ""))
		return
	}
	frow.Status = "succeeded"
	if _, err := sess.Exec(ctx, r.d.AuditFinish(r.state, &frow, strconv.FormatInt(n, 10))); err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		return
	}
	ur.Status, ur.Rows = StatusSucceeded, n
}
