package sqlgen

import (
	"fmt"
	"time"

	"github.com/idemc/idemc/plan"
)

// Run heartbeats (DESIGN §9's liveness, for engines with no session lock
// to hold for a run: Snowflake, BigQuery, Spark). A live run appends a row
// to idemc_heartbeats every few seconds; another run tells it from a dead
// one by a recent row, or, on the same host, by its process. Rows are
// only ever appended and deleted, never updated: an append never
// conflicts with another on Delta or BigQuery, where concurrent UPDATEs
// of one table do.

// HeartbeatRelation is the heartbeat table, beside the audit table.
func HeartbeatRelation(s plan.State) plan.Relation {
	r := s.Audit
	r.Name = "idemc_heartbeats"
	return r
}

// HeartbeatDDL creates the heartbeat table if it is missing.
func (g Gen) HeartbeatDDL(s plan.State) string {
	t, n, ts := g.S.Text, or(g.S.BigInt, "BIGINT"), or(g.S.Timestamp, "TIMESTAMP")
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (\n  run_id %s NOT NULL,\n  host %s,\n  pid %s,\n  beat_at %s\n)%s",
		g.Qualify(HeartbeatRelation(s)), t, t, n, ts, g.tableOptions())
}

// Heartbeat records that the run lives at at (the client's clock, UTC).
func (g Gen) Heartbeat(s plan.State, runID, host string, pid int, at time.Time) string {
	return fmt.Sprintf("INSERT INTO %s (run_id, host, pid, beat_at) VALUES (%s, %s, %d, %s)",
		g.Qualify(HeartbeatRelation(s)), g.String(runID), g.String(host), pid, g.Timestamp(at.UTC()))
}

// HeartbeatQuery returns the run's heartbeats since since, newest first,
// as (host, pid) rows, at most a few.
func (g Gen) HeartbeatQuery(s plan.State, runID string, since time.Time) string {
	return fmt.Sprintf("SELECT host, pid FROM %s WHERE run_id = %s AND beat_at >= %s ORDER BY beat_at DESC LIMIT 3",
		g.Qualify(HeartbeatRelation(s)), g.String(runID), g.Timestamp(since.UTC()))
}

// HeartbeatEnd deletes the run's heartbeats (a run that ended), and those
// of runs silent since before (dead long ago).
func (g Gen) HeartbeatEnd(s plan.State, runID string, before time.Time) string {
	return fmt.Sprintf("DELETE FROM %s WHERE run_id = %s OR beat_at < %s",
		g.Qualify(HeartbeatRelation(s)), g.String(runID), g.Timestamp(before.UTC()))
}
