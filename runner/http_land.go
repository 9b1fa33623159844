package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/internal/httpsource"
	"github.com/idemc/idemc/plan"
)

// land writes one page: nothing for an unchanged one (but the watermark,
// on the last page); else its records bulk-loaded aside, the unchanged
// ones dropped there, the rest merged with the page's ledger row in one
// transaction.
func (h *httpLoad) land(ctx context.Context, p *httpsource.Page) error {
	h.visited = append(h.visited, p.Key)
	var t *seed.Table
	if !p.Unchanged {
		var err error
		t, err = httpsource.Table(p.Records, httpsource.TableOptions{PrimaryKey: h.src.PrimaryKey, Declared: h.src.ColumnTypes, Existing: h.kinds, URL: p.Key})
		if err != nil {
			return err
		}
		if t, err = h.inWindow(t, p.Key); err != nil {
			return err
		}
	}
	ledger := h.ledgerSQL(p)
	if t == nil || len(t.Rows) == 0 {
		if len(ledger) == 0 {
			return nil // a 304 or an unchanged body: nothing to write
		}
		return h.ledgerOnly(ctx, ledger)
	}
	if h.cache != nil {
		t = h.cache.unseen(ctx, t)
	}
	n := int64(len(t.Rows))
	if n > 0 {
		if _, err := h.r.eng.LoadSeed(ctx, h.landing, t); err != nil {
			return fmt.Errorf("page %s: loading its records: %w", p.Key, err)
		}
		h.landed = true
		if h.exists {
			var err error
			if n, err = h.dropUnchanged(ctx); err != nil {
				return err
			}
		}
	}
	if n == 0 {
		return h.ledgerOnly(ctx, ledger)
	}
	if err := h.merge(ctx, t, p); err != nil {
		return fmt.Errorf("page %s: %w", p.Key, err)
	}
	h.written += n
	h.exists = true
	if h.cache != nil {
		h.cache.committed[h.txn] = true
	}
	return nil
}

// inWindow keeps the records whose since column is at most the cutoff
// (later ones are read by a later run, after the lag) and raises the
// run's watermark to the highest value kept.
func (h *httpLoad) inWindow(t *seed.Table, page string) (*seed.Table, error) {
	s := h.src.Since
	if s == nil {
		return t, nil
	}
	col := -1
	for j, c := range t.Columns {
		if strings.EqualFold(c.Name, s.Column) {
			col = j
		}
	}
	if col < 0 {
		if len(t.Rows) == 0 {
			return t, nil
		}
		return nil, fmt.Errorf("page %s: the records have no field %q (since.column)", page, s.Column)
	}
	kept := t.Rows[:0:0]
	for i, row := range t.Rows {
		at, ok := httpsource.TimeOf(row[col])
		if !ok {
			return nil, fmt.Errorf("page %s: record %d: since.column %q is %v, not a timestamp", page, i, s.Column, row[col])
		}
		if at.After(h.cutoff) {
			continue
		}
		kept = append(kept, row)
		if at.After(h.newWM) {
			h.newWM = at
		}
	}
	out := *t
	out.Rows = kept
	return &out, nil
}

// ledgerSQL is the page's ledger statements: its row when it changed, the
// watermark's on the last page when it advanced.
func (h *httpLoad) ledgerSQL(p *httpsource.Page) []string {
	r := h.r
	h.txn = newToken()
	var out []string
	now := time.Now().UTC()
	if !p.Unchanged {
		out = sqlgen.HTTPLedgerPut(r.d, r.state, sqlgen.HTTPEntry{Source: h.src.Name, URL: p.Key, ETag: p.Entry.ETag, LastModified: p.Entry.LastModified,
			BodyHash: p.Entry.BodyHash, Next: p.Entry.Next, RunID: r.res.RunID, Txn: h.txn, Fetched: now})
	}
	if p.Last && h.newWM.After(h.wm) {
		out = append(out, sqlgen.HTTPLedgerPut(r.d, r.state, sqlgen.HTTPEntry{Source: h.src.Name, URL: "", Watermark: h.newWM.UTC().Format(time.RFC3339Nano),
			RunID: r.res.RunID, Fetched: now})...)
	}
	if p.Last && h.src.Since != nil && h.stale() {
		// A since window's pages have URLs of their own: the rows of the
		// windows before this one will never be asked for again.
		out = append(out, sqlgen.HTTPLedgerPrune(r.d, r.state, h.src.Name, h.visited))
	}
	return out
}

// stale reports whether the ledger holds a page this run did not fetch.
func (h *httpLoad) stale() bool {
	seen := map[string]bool{}
	for _, k := range h.visited {
		seen[k] = true
	}
	for k := range h.prev {
		if !seen[k] {
			return true
		}
	}
	return false
}

// ledgerOnly commits ledger statements in a transaction of their own.
func (h *httpLoad) ledgerOnly(ctx context.Context, stmts []string) error {
	steps := []plan.Step{{Purpose: plan.Begin, SQL: h.r.d.Begin()}}
	for _, q := range stmts {
		steps = append(steps, plan.Step{Purpose: plan.StateStep, SQL: q})
	}
	steps = append(steps, plan.Step{Purpose: plan.Commit, SQL: "COMMIT"})
	return h.exec(ctx, nil, steps, nil)
}

// dropUnchanged deletes from the landing table the records the
// destination holds with the same content and returns how many are left.
func (h *httpLoad) dropUnchanged(ctx context.Context) (int64, error) {
	r := h.r
	q := sqlgen.HTTPDropUnchanged(r.d, h.landing, h.rel, httpsource.KeyColumn, httpsource.HashColumn)
	if _, err := adapters.ExecSQL(ctx, h.sess, q); err != nil {
		return 0, err
	}
	return scalar(ctx, h.sess, "SELECT count(*) FROM "+r.d.Qualify(h.landing))
}

// merge runs the engine's merge recipe for the landing table, keyed on the
// record key column (never NULL, so NULL keys match), with the page's
// ledger row before its commit and without the audit steps: the unit has
// one audit row, finished when its last page landed.
func (h *httpLoad) merge(ctx context.Context, t *seed.Table, p *httpsource.Page) error {
	ledger := h.ledgerSQL(p)
	r := h.r
	cols := sqlgen.SeedColumnNames(r.d.Quote, t)
	w := &plan.Write{Model: h.u.Model, Materialized: plan.Incremental, Strategy: "merge", Target: h.rel,
		Select:    fmt.Sprintf("SELECT %s FROM %s", strings.Join(cols, ", "), r.d.Qualify(h.landing)),
		UniqueKey: []string{httpsource.KeyColumn}, State: r.state, Audit: h.row}
	recipe, _, _, ue := r.resolveRecipe(ctx, h.sess, w, h.ur)
	if ue != nil {
		return ue.err
	}
	var steps []plan.Step
	for _, s := range recipe {
		switch s.Purpose {
		case plan.AuditStart, plan.AuditFinish, plan.LatestStart, plan.LatestEnd:
			continue // the source's unit records them
		case plan.Commit:
			for _, q := range ledger {
				steps = append(steps, plan.Step{Purpose: plan.StateStep, Comment: "the page's idemc_http row", SQL: q})
			}
		}
		steps = append(steps, s)
	}
	var beforeCommit func() error
	if h.cache != nil {
		beforeCommit = func() error {
			h.cache.txn = h.txn
			h.cache.mark(ctx, t)
			// The fault trials' point: marked in the cache, not committed.
			return r.o.AfterStep.after(ctx, h.u.ID, AfterCache)
		}
	}
	return h.exec(ctx, w, steps, beforeCommit)
}

// exec runs steps through the unit runner's step loop (checks, locks,
// retries' conflicts, the fault hook) and cleans up after a failure.
func (h *httpLoad) exec(ctx context.Context, w *plan.Write, steps []plan.Step, beforeCommit func() error) error {
	r := h.r
	if w == nil {
		w = &plan.Write{Model: h.u.Model, Target: h.rel, State: r.state, Audit: h.row}
	}
	st := &unitState{audited: true}
	commit := len(steps)
	for i, s := range steps {
		if s.Purpose == plan.Commit {
			commit = i
		}
	}
	ue := r.execSteps(ctx, h.sess, h.u, w, steps[:commit], 0, h.ur, h.row, st)
	if ue == nil && beforeCommit != nil {
		if err := beforeCommit(); err != nil {
			ue = &unitError{step: commit + 1, purp: AfterCache, err: err}
		}
	}
	if ue == nil {
		ue = r.execSteps(ctx, h.sess, h.u, w, steps, commit, h.ur, h.row, st)
	}
	if ue == nil {
		return nil
	}
	if st.inTx {
		rollback(context.WithoutCancel(ctx), h.sess, r.d)
	}
	cleanup(context.WithoutCancel(ctx), h.sess, steps, st)
	releaseLocks(ctx, h.sess, st)
	if ue.check != nil {
		return ue
	}
	return ue.err
}
