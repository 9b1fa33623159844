package runner

import (
	"context"
	"sync"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// claimChunk bounds the running rows one statement commits: the units it
// marks running before they start are at most this many (issue 18: the
// running row committed on its own was ~1 ms of a unit's 2.3 ms overhead
// on DuckDB).
const claimChunk = 64

// claims commits the running rows of the plan's root units (those with no
// unit upstream, ready as soon as the run starts) a chunk at a time: the
// first of a chunk to start inserts the running rows of the next
// claimChunk roots in one statement, committed before any of them writes,
// and those units skip their own audit_start (DESIGN §9: the running row
// is committed before the write; a dead run's claimed units are abandoned
// by the next run like any running unit). A claimed unit that never starts
// (fail-fast, an interrupt, a fatal stop) has its row deleted when the walk
// ends: it did not run.
type claims struct {
	mu      sync.Mutex
	roots   []*plan.Unit // in plan order
	next    int          // roots[next:] are not claimed yet
	index   map[string]int
	claimed map[string]time.Time // unit id → its running row's started_at
	started map[string]bool
}

// newClaims lists the roots of a plan whose running rows may be claimed:
// model writes (a seed records its own rows) on engines whose audit rows
// are updated in place (an append-only audit cannot delete an unstarted
// unit's row).
func (r *run) newClaims(pl *plan.Plan) *claims {
	c := &claims{index: map[string]int{}, claimed: map[string]time.Time{}, started: map[string]bool{}}
	if isAppendOnly(r.d) {
		return c
	}
	for _, u := range pl.Units {
		if u.Seed || u.Write == nil || u.Write.Audit == nil || pl.UnitGraph == nil || len(pl.UnitGraph.Upstream(u.ID)) > 0 {
			continue
		}
		c.index[u.ID] = len(c.roots)
		c.roots = append(c.roots, u)
	}
	return c
}

func isAppendOnly(d adapters.Dialect) bool {
	a, ok := d.(interface{ AuditAppendOnly() bool })
	return ok && a.AuditAppendOnly()
}

// auditRow is a unit's audit row for this run, started at t.
func (r *run) auditRow(u *plan.Unit, t time.Time) *plan.AuditRow {
	row := &plan.AuditRow{RunID: r.res.RunID, Job: u.Model, Partition: u.Partition, CodeHash: u.CodeHash,
		Target: r.pl.Target, AsOf: r.pl.AsOf, Started: t, Attempt: r.db.nextAttempt(u.Model, u.Partition), Inputs: u.Inputs, DataVersion: u.DataVersion,
		Dest: r.destOf(u)}
	if u.Write != nil && u.Write.Audit != nil {
		row.GitCommit = u.Write.Audit.GitCommit
	}
	return row
}

// claim reports whether the unit's running row is committed already, and
// its started_at: claimed by an earlier statement, or by this one, which
// commits the rows of the unit and of the roots after it. A unit that is
// not a root, or whose claim failed, writes its own row (ok false).
func (r *run) claim(ctx context.Context, sess adapters.Session, u *plan.Unit) (time.Time, bool) {
	c := r.claims
	if c == nil {
		return time.Time{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.claimed[u.ID]; ok {
		c.started[u.ID] = true
		return t, true
	}
	i, root := c.index[u.ID]
	if !root || i < c.next {
		return time.Time{}, false // not a root, or its chunk's claim failed
	}
	// This unit, then the unclaimed roots after the cursor.
	chunk := []*plan.Unit{u}
	for j := c.next; j < len(c.roots) && len(chunk) < claimChunk; j++ {
		if _, done := c.claimed[c.roots[j].ID]; !done && c.roots[j] != u {
			chunk = append(chunk, c.roots[j])
		}
	}
	t := time.Now().UTC()
	rows := make([]*plan.AuditRow, len(chunk))
	for k, cu := range chunk {
		rows[k] = r.auditRow(cu, t)
	}
	claim := []string{sqlgen.AuditStartRows(r.d, r.state, rows)}
	if q := sqlgen.LatestRunningRows(r.d, r.state, rows); q != "" {
		// Both in one transaction: one commit, as before idemc_latest.
		claim = []string{r.d.Begin(), q, claim[0], "COMMIT"}
	}
	if err := execAll(ctx, sess, claim); err != nil {
		if len(claim) > 1 {
			rollback(context.WithoutCancel(ctx), sess, r.d)
		}
		c.next = max(c.next, i+1) // no retry of this unit's chunk: each writes its own
		return time.Time{}, false
	}
	for _, cu := range chunk {
		c.claimed[cu.ID] = t
	}
	for c.next < len(c.roots) {
		if _, done := c.claimed[c.roots[c.next].ID]; !done {
			break
		}
		c.next++
	}
	c.started[u.ID] = true
	return t, true
}

// releaseClaims deletes the running rows of the claimed units that never
// started (best effort: a row left behind is abandoned by the next run).
func (r *run) releaseClaims(ctx context.Context) {
	c := r.claims
	if c == nil {
		return
	}
	c.mu.Lock()
	var keys [][2]string
	var dests []plan.Relation
	for id := range c.claimed {
		if !c.started[id] {
			u := c.roots[c.index[id]]
			keys = append(keys, [2]string{u.Model, u.Partition})
			dests = append(dests, r.destOf(u))
		}
	}
	c.mu.Unlock()
	if len(keys) == 0 {
		return
	}
	gctx, cancel := graceContext(ctx)
	defer cancel()
	sess, err := r.eng.Session(gctx)
	if err != nil {
		return
	}
	defer sess.Close()
	for len(keys) > 0 {
		n := min(len(keys), probeBatch)
		_, _ = adapters.ExecSQL(gctx, sess, sqlgen.UnclaimRows(r.d, r.state, r.res.RunID, keys[:n]))
		_ = execAll(gctx, sess, sqlgen.LatestUnclaim(r.d, r.state, r.res.RunID, keys[:n], dests[:n]))
		keys, dests = keys[n:], dests[n:]
	}
}

// withoutStart is a claimed unit's recipe without its audit_start: the
// claim inserted that row, so the recipe that runs, and the file in
// target/compiled, leave it out.
func (c *claims) withoutStart(id string, steps []plan.Step) []plan.Step {
	if c == nil {
		return steps
	}
	c.mu.Lock()
	_, ok := c.claimed[id]
	c.mu.Unlock()
	if !ok {
		return steps
	}
	out := make([]plan.Step, 0, len(steps))
	for _, s := range steps {
		if s.Purpose != plan.AuditStart && s.Purpose != plan.LatestStart {
			out = append(out, s)
		}
	}
	return out
}
