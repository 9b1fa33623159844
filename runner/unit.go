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
	switch {
	case u.HTTP:
		r.runHTTP(ctx, sess, u, ur)
	case u.Seed:
		r.runSeed(ctx, sess, u, ur)
	default:
		r.runWrite(ctx, sess, u, ur)
	}
	return ur
}

// runWrite runs a model's unit on its session: its running row (or the
// run's claim of it), the DDL phase, then its transaction.
func (r *run) runWrite(ctx context.Context, sess adapters.Session, u *plan.Unit, ur *UnitResult) {
	// A root unit's running row may be committed already, with others
	// ready with it (claims.go).
	started, claimed := r.claim(ctx, sess, u)
	if !claimed {
		started = time.Now().UTC()
	}
	row := r.auditRow(u, started)
	w := *u.Write
	w.Audit = row
	st := &unitState{audited: claimed}
	steps, begin, release, ue := r.ddlPhase(ctx, sess, u, &w, ur)
	defer release()
	if ue == nil && claimed {
		ue = r.claimedHooks(ctx, u, begin)
	}
	if ue == nil {
		ue = r.runTx(ctx, sess, u, &w, steps, begin, ur, row, st)
	}
	if ue != nil {
		r.failUnit(ctx, sess, u, &w, steps, row, st, ur, ue)
		return
	}
	ur.Status = StatusSucceeded
}

// claimedHooks runs the fault hooks of the running rows a claim committed
// where the recipe's latest_start and audit_start would have.
func (r *run) claimedHooks(ctx context.Context, u *plan.Unit, begin int) *unitError {
	hooks := []plan.Purpose{plan.AuditStart}
	if sqlgen.HasLatest(r.d) {
		hooks = []plan.Purpose{plan.LatestStart, plan.AuditStart}
	}
	for i, p := range hooks {
		if err := r.o.AfterStep.after(ctx, u.ID, p); err != nil {
			return &unitError{step: begin + 1 + i, purp: p, err: err}
		}
	}
	return nil
}

// runTx runs a unit's steps from begin. The transactional part is retried
// when the engine reports a retryable conflict (a deadlock, a
// serialization failure): it was rolled back, so running it again is safe.
func (r *run) runTx(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, steps []plan.Step, begin int, ur *UnitResult, row *plan.AuditRow, st *unitState) *unitError {
	bo := newBackoff(r.eng)
	for attempt := 1; ; attempt++ {
		ue := r.execSteps(ctx, sess, u, w, steps, begin, ur, row, st)
		if ue == nil {
			// A lock whose release a composed recipe left out (a claim
			// around Spark's swap) is released here.
			releaseLocks(ctx, sess, st)
			return nil
		}
		wait, again := bo.next(attempt, time.Now())
		if !again || ue.check != nil || ctx.Err() != nil || !retryable(r.eng, ue.err) {
			return ue
		}
		if st.inTx {
			rollback(context.WithoutCancel(ctx), sess, r.d)
			st.inTx = false
		}
		// The retry takes its locks again: session locks count
		// re-entries, so release this attempt's first.
		releaseLocks(ctx, sess, st)
		ur.Checks = nil
		ur.Note = fmt.Sprintf("retried after a conflict with a concurrent transaction (%v)", firstLine(ue.err.Error()))
		for begin < len(steps) && (steps[begin].Purpose == plan.LatestStart || steps[begin].Purpose == plan.AuditStart) {
			begin++ // the running row is already there
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
		}
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
		rollback(context.WithoutCancel(ctx), sess, r.d)
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
		r.recordRecipe(u, w, sqlgen.Recipe(r.d, w))
	}
	if !st.audited {
		// The unit failed before its running row: record it now, so
		// every attempt has its row.
		for _, q := range r.startSQL(row) {
			_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), sess, q)
		}
	}
	frow := *row
	frow.Status, frow.Ended, frow.Error = "failed", time.Now().UTC(), ur.Error
	frow.Checks = checksJSON(ur.Checks)
	_ = r.execStates(context.WithoutCancel(ctx), sess, r.finishSQL(&frow, ""))
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
// steps, unless an earlier unit of the run on the same destination sent
// them (the file says so under each); hold says the recipe changes the
// relation's schema, so the lock is kept until the unit ends.
func (r *run) ddlSteps(ctx context.Context, sess adapters.Session, u *plan.Unit, w *plan.Write, ur *UnitResult) ([]plan.Step, int, bool, *unitError) {
	steps, hold, prepared, ue := r.resolveRecipe(ctx, sess, w, ur)
	if ue != nil {
		return steps, 0, false, ue
	}
	steps = r.claims.withoutStart(u.ID, steps)
	if prepared {
		skipPrepared(steps)
	}
	u.Steps = steps
	r.recordRecipe(u, w, steps)
	i := 0
	for ; i < len(steps) && steps[i].Purpose == plan.Prepare; i++ {
		// A step not sent is passed all the same: the step hooks (fault
		// rules) see every unit's numbered steps.
		var err error
		if steps[i].NotSent == "" {
			err = execIdempotent(ctx, r.eng, sess, &steps[i])
		}
		if err == nil {
			err = r.o.AfterStep.after(ctx, u.ID, steps[i].Purpose)
		}
		if err != nil {
			return steps, i, false, &unitError{step: i + 1, purp: steps[i].Purpose, err: err}
		}
	}
	if !prepared {
		r.markPrepared(w)
	}
	return steps, i, hold, nil
}

// resolveRecipe reads what a unit's recipe depends on — whether the
// destination changes kind, the batch's columns and how on_schema_change
// changes the destination's, whether a view's columns changed — decides
// the change of the destination's definition (w.Schema), and then builds
// the recipe, once (sqlgen.Recipe composes the change in). Reading comes
// first, before any of the recipe runs: its prepare steps create a
// missing destination with the batch's columns, which leaves nothing to
// change. hold says the recipe changes the relation's schema; prepared
// that an earlier unit of the run sent its prepare steps (schema_cache.go).
func (r *run) resolveRecipe(ctx context.Context, sess adapters.Session, w *plan.Write, ur *UnitResult) (steps []plan.Step, hold, prepared bool, ue *unitError) {
	schemaErr := func(err error) ([]plan.Step, bool, bool, *unitError) {
		return nil, false, false, &unitError{step: 1, purp: plan.SchemaStep, err: err}
	}
	if steps, prepared, ok, err := r.cachedRecipe(ctx, sess, w); ok || err != nil {
		if err != nil {
			return schemaErr(err)
		}
		return steps, false, prepared, nil
	}
	ddl := r.newSchemaDDL(sess, w)
	if ch, err := r.kindChangeRecipe(ctx, sess, ddl, w); ch != nil || err != nil {
		r.rememberDest(w, nil, true)
		if err != nil {
			return schemaErr(err)
		}
		w.Schema = ch
		return sqlgen.Recipe(r.d, w), true, false, nil
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
	if len(ddl.steps) > 0 {
		w.Schema = &plan.SchemaChange{Alters: ddl.steps, Reprepare: ddl.reprepare >= 0, ReprepareAt: max(ddl.reprepare, 0), Aside: ddl.aside,
			// An unpartitioned full refresh rewrites every row: its copy
			// starts empty, so a type its old values cannot take is no error.
			CopyRows: ddl.aside && !ddl.emptyCopy && !(w.FullRefresh && w.Window == nil)}
	}
	r.rememberDest(w, ddl.batch, w.Schema != nil)
	return sqlgen.Recipe(r.d, w), w.Schema != nil, false, nil
}

// kindChangeRecipe decides the change of a unit whose destination changes
// kind (a view becomes a table or the other way round, or the planner's
// Write.Replace), nil when it does not: replaced inside the unit's
// transaction where DDL is transactional, the recipe's prepare steps moved
// there too; built aside and swapped in on a KindSwapper dialect.
func (r *run) kindChangeRecipe(ctx context.Context, sess adapters.Session, ddl *schemaDDL, w *plan.Write) (*plan.SchemaChange, error) {
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
		if err := r.replaceKind(ctx, sess, ddl, w, drop); err != nil {
			return nil, err
		}
		return &plan.SchemaChange{Alters: ddl.steps, Reprepare: true, ReprepareAt: 1, MovePrepare: true}, nil
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
	if r.kindChangeFrom(have, w) == "" {
		return nil, nil
	}
	return &plan.SchemaChange{Kind: &plan.KindSwap{FromView: have == "view"}}, nil
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

// maxTxAttempts bounds retries of a unit's transaction after conflicts on
// an engine without a retry budget (backoff).
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
		Attempt: r.db.nextAttempt(u.Model, ""), Inputs: u.Inputs, DataVersion: u.DataVersion, Dest: r.destOf(u)}
	if err := r.execStates(ctx, sess, r.startSQL(row)); err != nil {
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
		_ = r.execStates(context.WithoutCancel(ctx), sess, r.finishSQL(&frow, ""))
		return
	}
	frow.Status = "succeeded"
	if err := r.execStates(ctx, sess, r.finishSQL(&frow, strconv.FormatInt(n, 10))); err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		return
	}
	ur.Status, ur.Rows = StatusSucceeded, n
}
