package sqlgen

import (
	"fmt"
	"time"

	"github.com/idemc/idemc/plan"
)

// Unit claims: the unit lock of engines with no lock a session could hold
// (Snowflake, BigQuery, Spark; Capabilities.UnitClaim). A unit claims its
// key (the destination and partition, PostgreSQL's advisory lock key) as
// a row of idemc_locks, beside the audit table, before its first write:
// one MERGE inserts the row if the key has none, atomically because the
// engine serializes two MERGEs of one table (Snowflake's table lock,
// BigQuery's mutating DML, Delta's conflict check of what a MERGE read).
// The runner then reads the holder: this run goes on; a live run is
// waited for; a dead run's row (runner/liveness.go) is deleted and the
// claim made again. The row is deleted when the unit ends, and a run's
// rows when the run ends.

// DefaultClaimWait is how long a unit waits for another live run's claim
// before it fails as locked by another run (MySQL's GET_LOCK waits as long).
const DefaultClaimWait = 600 * time.Second

// ClaimRelation is the lock table, beside the audit table.
func ClaimRelation(s plan.State) plan.Relation {
	r := s.Audit
	r.Name = "idemc_locks"
	return r
}

// ClaimDDL creates the lock table if it is missing.
func (g Gen) ClaimDDL(s plan.State) string {
	t, ts := g.S.Text, or(g.S.Timestamp, "TIMESTAMP")
	opts := g.tableOptions()
	if g.S.ClaimTableOptions != "" {
		opts = " " + g.S.ClaimTableOptions
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (\n  lock_key %s NOT NULL,\n  run_id %s NOT NULL,\n  claimed_at %s\n)%s",
		g.Qualify(ClaimRelation(s)), t, t, ts, opts)
}

// ClaimKey is what a unit claims: its destination and partition.
func (g Gen) ClaimKey(w *plan.Write) string {
	key := g.Qualify(w.Target)
	if w.Window != nil {
		key += "/" + w.Window.Key
	}
	return key
}

// Claim inserts the key's row for runID unless the key has one.
func (g Gen) Claim(s plan.State, key, runID string) string {
	matched := ""
	if g.S.ClaimMatched != "" {
		matched = "\n" + g.S.ClaimMatched
	}
	return fmt.Sprintf("MERGE INTO %s AS t\nUSING (SELECT 1 AS one) AS s\nON t.lock_key = %s%s\nWHEN NOT MATCHED THEN INSERT (lock_key, run_id, claimed_at) VALUES (%s, %s, CURRENT_TIMESTAMP)",
		g.Qualify(ClaimRelation(s)), g.String(key), matched, g.String(key), g.String(runID))
}

// ClaimHolder is the query of the run holding key (no row: none).
func (g Gen) ClaimHolder(s plan.State, key string) string {
	return fmt.Sprintf("SELECT run_id FROM %s WHERE lock_key = %s ORDER BY claimed_at, run_id LIMIT 1",
		g.Qualify(ClaimRelation(s)), g.String(key))
}

// ClaimRelease deletes the key's row if runID holds it: both a unit's
// release and a dead holder's takeover (runID the slot SlotHolder).
func (g Gen) ClaimRelease(s plan.State, key, runID string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE lock_key = %s AND run_id = %s",
		g.Qualify(ClaimRelation(s)), g.String(key), runID)
}

// ClaimsEnd deletes every row of a run that ends.
func (g Gen) ClaimsEnd(s plan.State, runID string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE run_id = %s", g.Qualify(ClaimRelation(s)), g.String(runID))
}

// ClaimStep is a unit's claim: a lock step whose LockSpec says how the
// runner completes it, with its release.
func (g Gen) ClaimStep(w *plan.Write) plan.Step {
	run := "<run_id>"
	if w.Audit != nil && w.Audit.RunID != "" {
		run = w.Audit.RunID
	}
	key := g.ClaimKey(w)
	return plan.Step{Purpose: plan.Lock, Comment: "claim this unit in the lock table: another live run's claim is waited for",
		SQL: g.Claim(w.State, key, run),
		Lock: &plan.LockSpec{Key: key, Timeout: DefaultClaimWait, Release: g.ClaimRelease(w.State, key, g.String(run)),
			Claim: &plan.ClaimSpec{RunID: run, Holder: g.ClaimHolder(w.State, key),
				Takeover: g.ClaimRelease(w.State, key, plan.Token(plan.SlotHolder)), Counts: g.S.ClaimCounts}}}
}

// withClaim puts the unit's claim before its first write, after the steps
// that only prepare the destination and record the unit running (where a
// session lock is taken, but outside any transaction: the row must commit
// on its own to be seen), and its release last.
func (g Gen) withClaim(w *plan.Write, steps []plan.Step) []plan.Step {
	if !g.C.UnitClaim || w.State.Audit.Name == "" {
		return steps
	}
	at := 0
	for i, s := range steps {
		if s.Purpose != plan.Prepare && s.Purpose != plan.LatestStart && s.Purpose != plan.AuditStart {
			break
		}
		at = i + 1
	}
	claim := g.ClaimStep(w)
	out := make([]plan.Step, 0, len(steps)+2)
	out = append(append(append(out, steps[:at]...), claim), steps[at:]...)
	return append(out, plan.Step{Purpose: plan.Cleanup, Comment: "release the unit's claim", SQL: claim.Lock.Release})
}
