package runner

import (
	"context"
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// idemc_latest (sqlgen/latest.go) is written beside every audit row the
// runner writes outside a recipe (failures, seeds, HTTP sources,
// interrupts, claims), as the recipes write it.

// startSQL is a unit's running row: its latest row first, so that a run
// that dies between the two statements is seen running (and abandoned),
// then its audit row.
func (r *run) startSQL(row *plan.AuditRow) []string {
	out := []string{r.d.AuditStart(r.state, row)}
	if q := sqlgen.LatestRunning(r.d, r.state, row); q != "" {
		out = append([]string{q}, out...)
	}
	return out
}

// finishSQL is a unit's final row outside a recipe: its audit row, then its
// latest row (a run that dies between them leaves the latest row running:
// abandoned by the next run, which redoes the unit). count is a number or
// "" for none.
func (r *run) finishSQL(frow *plan.AuditRow, count string) []string {
	out := []string{r.d.AuditFinish(r.state, frow, count)}
	if q := sqlgen.LatestFinal(r.d, r.state, frow, count); q != "" {
		out = append(out, q)
	}
	return out
}

// execStates runs state statements in order, stopping at the first error.
func (r *run) execStates(ctx context.Context, sess adapters.Session, qs []string) error {
	for _, q := range qs {
		if err := r.execState(ctx, sess, q); err != nil {
			return err
		}
	}
	return nil
}

// destOf is the relation a unit writes, recorded in its latest row.
func (r *run) destOf(u *plan.Unit) plan.Relation {
	if u.Write != nil {
		return u.Write.Target
	}
	if n := r.pl.Nodes[u.Model]; n != nil {
		return n.Relation
	}
	return plan.Relation{}
}

// readStateOf is the state the run reads: from the audit table while
// idemc_latest does not exist yet (it is filled when the run has work).
func (r *run) readStateOf() plan.State {
	st := r.state
	if r.latestMissing {
		st.Latest = plan.Relation{}
	}
	return st
}

// latestPresent reports whether idemc_latest exists, for an engine that
// keeps it (true otherwise: nothing to fill).
func latestPresent(ctx context.Context, sess adapters.Session, d adapters.Dialect, st plan.State) (bool, error) {
	if !sqlgen.HasLatest(d) {
		return true, nil
	}
	_, ok, err := sess.Relation(ctx, st.Latest)
	return ok, err
}

// fillLatest is the one-time migration of an audit table older than
// idemc_latest: the table and each unit's latest audit row, in one
// transaction (DuckDB and PostgreSQL; MySQL commits the CREATE on its
// own, and its INSERT IGNORE … SELECT is one statement), by the first run
// with work. A concurrent first run's fill is not repeated: the table
// exists and the rows of its keys are kept.
func (r *run) fillLatest(ctx context.Context, sess adapters.Session) error {
	if !r.latestMissing {
		return nil
	}
	fill := sqlgen.LatestFill(r.d, r.state)
	stmts := append(append([]string{r.d.Begin()}, fill...), "COMMIT") // the engines that keep it spell it so
	racer, _ := r.eng.(adapters.DDLRacer)
	var err error
	for attempt := 1; attempt <= 4; attempt++ {
		if err = execAll(ctx, sess, stmts); err == nil {
			r.latestMissing = false
			return nil
		}
		rollback(context.WithoutCancel(ctx), sess, r.d)
		if racer == nil || !racer.LostDDLRace(err) || ctx.Err() != nil {
			break // a concurrent creator (execIdempotent) is tried again
		}
	}
	return fmt.Errorf("runner: filling %s from the audit table: %w", r.state.Latest.Name, err)
}

func execAll(ctx context.Context, sess adapters.Session, stmts []string) error {
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
			return err
		}
	}
	return nil
}

// readable is st as a read-only command reads it: from the audit table
// while idemc_latest does not exist yet.
func readable(ctx context.Context, sess adapters.Session, d adapters.Dialect, st plan.State) (plan.State, error) {
	ok, err := latestPresent(ctx, sess, d, st)
	if err == nil && !ok {
		st.Latest = plan.Relation{}
	}
	return st, err
}
