package sqlgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/plan"
)

// The outbox of `idemc notify` (DESIGN §14): one row per event, delivered
// at most once per lease. Only the observer writes it; builds never do.

// OutboxEvent is one row of idemc_outbox.
type OutboxEvent struct {
	ID, Notify, Event, Model, Partition, SourceRun, Payload string
	Created                                                 time.Time
}

// Outbox is the outbox table of state s.
func Outbox(s plan.State) plan.Relation {
	return plan.Relation{Database: s.Audit.Database, Schema: s.Audit.Schema, Name: "idemc_outbox"}
}

// OutboxDDL creates the outbox table.
func (g Gen) OutboxDDL(s plan.State) []string {
	t, n, ts := g.S.Text, or(g.S.BigInt, "BIGINT"), or(g.S.Timestamp, "TIMESTAMP")
	k := t
	if g.S.KeyText != "" {
		k = g.S.KeyText
	}
	var out []string
	if sc := g.CreateSchema(s.Audit); sc != "" {
		out = append(out, sc)
	}
	return append(out, fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  event_id %s NOT NULL PRIMARY KEY,
  notify_name %s NOT NULL,
  event %s NOT NULL,
  model %s,
  partition_key %s,
  source_run %s,
  payload %s,
  created_at %s,
  attempts %s,
  next_attempt_at %s,
  lease_owner %s,
  lease_until %s,
  delivered_at %s,
  last_error %s
)%s`, g.Qualify(Outbox(s)), k, k, k, k, k, k, t, ts, n, ts, k, ts, ts, t, g.tableOptions()))
}

// OutboxInsert adds events whose id is not there yet: two observers
// deriving the same event insert it once.
func (g Gen) OutboxInsert(s plan.State, evs []OutboxEvent) string {
	var rows []string
	for _, e := range evs {
		rows = append(rows, fmt.Sprintf("(%s, %s, %s, %s, %s, %s, %s, %s, 0)", g.String(e.ID), g.String(e.Notify), g.String(e.Event),
			g.String(e.Model), g.String(e.Partition), g.String(e.SourceRun), g.String(e.Payload), g.Timestamp(e.Created)))
	}
	insert, tail := "INSERT INTO", "\nON CONFLICT (event_id) DO NOTHING"
	if g.S.Engine == "mysql" { // MySQL and MariaDB have no ON CONFLICT
		insert, tail = "INSERT IGNORE INTO", ""
	}
	return fmt.Sprintf("%s %s (event_id, notify_name, event, model, partition_key, source_run, payload, created_at, attempts)\nVALUES %s%s",
		insert, g.Qualify(Outbox(s)), strings.Join(rows, ",\n  "), tail)
}

// OutboxIDs lists the ids of the events already there.
func (g Gen) OutboxIDs(s plan.State) string {
	return "SELECT event_id FROM " + g.Qualify(Outbox(s))
}

// OutboxPending lists the undelivered events, oldest first.
func (g Gen) OutboxPending(s plan.State) string {
	return fmt.Sprintf(`SELECT event_id, notify_name, event, model, partition_key, payload, attempts, next_attempt_at, last_error, created_at
FROM %s WHERE delivered_at IS NULL ORDER BY created_at, model, partition_key, event_id`, g.Qualify(Outbox(s)))
}

// OutboxClaim leases an undelivered event whose lease is free and whose
// retry is due: one statement, so of two observers only one gets it
// (affected rows 1).
func (g Gen) OutboxClaim(s plan.State, id, owner string, now, until time.Time) string {
	return fmt.Sprintf(`UPDATE %s SET lease_owner = %s, lease_until = %s, attempts = attempts + 1
WHERE event_id = %s AND delivered_at IS NULL AND (lease_until IS NULL OR lease_until < %s) AND (next_attempt_at IS NULL OR next_attempt_at <= %s)`,
		g.Qualify(Outbox(s)), g.String(owner), g.Timestamp(until), g.String(id), g.Timestamp(now), g.Timestamp(now))
}

// OutboxDelivered marks a leased event delivered.
func (g Gen) OutboxDelivered(s plan.State, id, owner string, now time.Time) string {
	return fmt.Sprintf(`UPDATE %s SET delivered_at = %s, lease_owner = NULL, lease_until = NULL, last_error = NULL
WHERE event_id = %s AND lease_owner = %s`, g.Qualify(Outbox(s)), g.Timestamp(now), g.String(id), g.String(owner))
}

// OutboxFailed records a failed delivery and when to try again, and
// frees the lease.
func (g Gen) OutboxFailed(s plan.State, id, owner, msg string, next time.Time) string {
	return fmt.Sprintf(`UPDATE %s SET last_error = %s, next_attempt_at = %s, lease_owner = NULL, lease_until = NULL
WHERE event_id = %s AND lease_owner = %s`, g.Qualify(Outbox(s)), g.String(msg), g.Timestamp(next), g.String(id), g.String(owner))
}

// NotifySourceQuery is the latest audit row of every unit, with what the
// events need: status, rows, checks and the input fingerprint.
func NotifySourceQuery(g interface{ Qualify(plan.Relation) string }, s plan.State) string {
	t := s.Audit
	if useLatest(g, s) {
		t = s.Latest // its units' rows, not their history
	}
	return fmt.Sprintf(`SELECT job_name, partition_key, status, row_count, run_id, attempt, inputs, checks, error, ended_at FROM (
  SELECT a.*, row_number() OVER (PARTITION BY job_name, partition_key ORDER BY attempt DESC, started_at DESC) AS idemc_rank
  FROM %s AS a
) AS latest
WHERE idemc_rank = 1 AND status IN ('succeeded', 'failed')
ORDER BY job_name, partition_key`, g.Qualify(t))
}

// NotifyRunsQuery lists the finished runs.
func NotifyRunsQuery(g interface{ Qualify(plan.Relation) string }, s plan.State) string {
	return fmt.Sprintf("SELECT run_id, command, target, as_of, outcome, succeeded, failed, skipped, ended_at FROM %s WHERE ended_at IS NOT NULL ORDER BY run_id", g.Qualify(s.Runs))
}
