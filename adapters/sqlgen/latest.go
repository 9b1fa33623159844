package sqlgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// idemc_latest holds one row per unit and destination: the unit's latest
// attempt, as the audit table's ranking (latestRows) would find it. Every
// statement that writes an audit row writes its latest row too, the final
// one in the unit's own transaction, so that reading the state costs the
// number of units, not the length of the history (issue 18). The audit
// table stays the full history.

// Latest upsert spellings (Spelling.Latest).
const (
	// LatestOnConflict: INSERT … ON CONFLICT (key) DO UPDATE SET c =
	// excluded.c (PostgreSQL; DuckDB, duckdb.org/docs/sql/statements/insert
	// "ON CONFLICT Clause").
	LatestOnConflict = "on_conflict"
	// LatestOnDuplicate: INSERT … ON DUPLICATE KEY UPDATE c = VALUES(c)
	// (MySQL/MariaDB).
	LatestOnDuplicate = "on_duplicate"
)

// latestKey is idemc_latest's primary key.
const latestKey = "job_name, partition_key, dest_schema, dest_name"

// latestColumns are idemc_latest's columns, in the order written here.
const latestColumns = latestKey + ", run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version"

// latestValues are the non-key columns an upsert sets.
var latestValues = strings.Split("run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version", ", ")

// LatestTable reports a dialect that keeps idemc_latest.
func (g Gen) LatestTable() bool { return g.S.Latest != "" && !g.S.AuditAppendOnly }

// LatestGen is the Gen of a dialect (promoted through the engines'
// embedding), for the latest-state statements the runner issues.
func (g Gen) LatestGen() Gen { return g }

// genOf is the Gen of a dialect that keeps idemc_latest, when s names it.
func genOf(d any, s plan.State) (Gen, bool) {
	l, ok := d.(interface{ LatestGen() Gen })
	if !ok || s.Latest.Name == "" || !l.LatestGen().LatestTable() {
		return Gen{}, false
	}
	return l.LatestGen(), true
}

// HasLatest reports a dialect that keeps idemc_latest.
func HasLatest(d any) bool {
	_, ok := genOf(d, plan.StateIn(""))
	return ok
}

// LatestDDL creates idemc_latest (nil when the dialect keeps none).
func (g Gen) LatestDDL(s plan.State) []string {
	if !g.LatestTable() || s.Latest.Name == "" {
		return nil
	}
	return []string{g.latestTable(g.Qualify(s.Latest))}
}

// LatestDDLOf is d's LatestDDL (nil when it keeps no latest table).
func LatestDDLOf(d any, s plan.State) []string {
	g, ok := genOf(d, s)
	if !ok {
		return nil
	}
	return g.LatestDDL(s)
}

// useLatest reports whether the state reads go to idemc_latest: the
// dialect keeps it and the runner found it (plan.State.Latest set).
func useLatest(g any, s plan.State) bool {
	_, ok := genOf(g, s)
	return ok
}

func (g Gen) latestTable(name string) string {
	t, n, ts := g.S.Text, or(g.S.BigInt, "BIGINT"), or(g.S.Timestamp, "TIMESTAMP")
	k, dn := or(g.S.KeyText, t), or(g.S.NameText, or(g.S.KeyText, t))
	return fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  job_name %s NOT NULL,
  partition_key %s NOT NULL,
  dest_schema %s NOT NULL,
  dest_name %s NOT NULL,
  run_id %s NOT NULL,
  status %s NOT NULL,
  row_count %s,
  started_at %s,
  ended_at %s,
  attempt %s,
  code_hash %s,
  target %s,
  as_of %s,
  error %s,
  checks %s,
  inputs %s,
  data_version %s,
  PRIMARY KEY (%s)
)%s`, name, k, k, dn, dn, k, t, n, ts, ts, n, t, t, ts, t, t, t, t, latestKey, g.tableOptions())
}

// LatestFill is the one-time migration of a project whose audit table
// predates idemc_latest: the table, filled with each unit's latest audit
// row in one statement, run in one transaction by the first run with work.
// Rows from before have no destination (”): the audit table never
// recorded it, so `ls --orphans` cannot name their relations.
func LatestFill(d adapters.Literals, s plan.State) []string {
	g, ok := genOf(d, s)
	if !ok {
		return nil
	}
	ins := "INSERT INTO"
	if g.S.Latest == LatestOnDuplicate {
		ins = "INSERT IGNORE INTO" // a concurrent first run filled it first
	}
	fill := fmt.Sprintf(`%s %s (%s)
SELECT job_name, partition_key, '', '', run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version FROM (
%s
) AS latest
WHERE idemc_rank = 1`, ins, g.Qualify(s.Latest), latestColumns, rankedRows(g, g.Qualify(s.Audit)))
	if g.S.Latest == LatestOnConflict {
		fill += "\nON CONFLICT DO NOTHING"
	}
	return []string{g.latestTable(g.Qualify(s.Latest)), fill}
}

// LatestUpsert sets a unit's latest row from its audit row (plan.AuditRow
// as AuditStart and AuditFinish write it; "" when the dialect keeps
// none). count, ended, errSQL and checks are SQL, as auditFinish takes them.
func (g Gen) LatestUpsert(s plan.State, r *plan.AuditRow, count, ended, errSQL, checks string) string {
	if !g.LatestTable() || s.Latest.Name == "" {
		return ""
	}
	return g.latestUpsert(s, r, count, ended, errSQL, checks, g.upsertTail(s))
}

// latestUpsert is LatestUpsert with its ON CONFLICT tail made.
func (g Gen) latestUpsert(s plan.State, r *plan.AuditRow, count, ended, errSQL, checks, tail string) string {
	return "INSERT INTO " + g.Qualify(s.Latest) + " (" + latestColumns + ")\nVALUES " + g.latestRow(r, count, ended, errSQL, checks) + tail
}

// LatestFinish is a recipe's latest_end: an UPDATE of the row its
// latest_start (or the run's claim) wrote, found by key and run id. It
// changes what the upsert would (the start row holds the same run, attempt
// and start, so the upsert's later-attempt rule always chose this row;
// a later attempt of another run has another run id and is left alone) at
// a fraction of its cost: no index maintenance, no conflict path (DuckDB's
// ON CONFLICT upsert was the dearest statement of a unit, issue 18 item 3).
func (g Gen) LatestFinish(s plan.State, r *plan.AuditRow, count, ended, errSQL, checks string) string {
	if !g.LatestTable() || s.Latest.Name == "" {
		return ""
	}
	// Joined by hand, as latestUpsert: one per unit in every compile.
	return "UPDATE " + g.Qualify(s.Latest) + " SET status = " + g.String(r.Status) + ", row_count = " + count +
		", ended_at = " + ended + ", error = " + errSQL + ", checks = " + checks +
		"\nWHERE job_name = " + g.String(r.Job) + " AND partition_key = " + g.String(r.Partition) +
		" AND dest_schema = " + g.String(r.Dest.Schema) + " AND dest_name = " + g.String(r.Dest.Name) + " AND run_id = " + g.String(r.RunID)
}

// LatestRunning is LatestUpsert of a running row (AuditStart's values).
func LatestRunning(d adapters.Literals, s plan.State, r *plan.AuditRow) string {
	g, _ := genOf(d, s)
	run := *r
	run.Status = "running"
	return g.LatestUpsert(s, &run, "NULL", "NULL", "NULL", "NULL")
}

// LatestFinal is LatestUpsert of a finished row with its literal values
// (AuditFinish's, outside a recipe); count is a number or "".
func LatestFinal(d adapters.Literals, s plan.State, r *plan.AuditRow, count string) string {
	g, _ := genOf(d, s)
	if count == "" {
		count = "NULL"
	}
	return g.LatestUpsert(s, r, count, tsOrNull(d, r.Ended), strOrNull(d, r.Error), strOrNull(d, r.Checks))
}

// LatestRunningRows is LatestRunning for the units a run claims together.
func LatestRunningRows(d adapters.Literals, s plan.State, rows []*plan.AuditRow) string {
	g, ok := genOf(d, s)
	if !ok || len(rows) == 0 {
		return ""
	}
	values := make([]string, len(rows))
	for i, r := range rows {
		run := *r
		run.Status = "running" // as AuditStartRows writes them
		values[i] = g.latestRow(&run, "NULL", "NULL", "NULL", "NULL")
	}
	return fmt.Sprintf("INSERT INTO %s (%s)\nVALUES %s%s", g.Qualify(s.Latest), latestColumns, strings.Join(values, ",\n"), g.upsertTail(s))
}

func (g Gen) latestRow(r *plan.AuditRow, count, ended, errSQL, checks string) string {
	attempt, started := strconv.FormatInt(r.Attempt, 10), tsOrNull(g, r.Started)
	if r.Attempt <= 0 {
		attempt, started = "<attempt>", "<started_at>" // as AuditStart prints them
	}
	// Joined by hand, not fmt: two rows per unit made this a tenth of a
	// 10,000-model compile.
	vals := [...]string{g.String(r.Job), g.String(r.Partition), g.String(r.Dest.Schema), g.String(r.Dest.Name), g.String(r.RunID), g.String(r.Status),
		count, started, ended, attempt, g.String(r.CodeHash), g.String(r.Target), tsOrNull(g, r.AsOf), errSQL, checks,
		strOrNull(g, r.Inputs), strOrNull(g, r.DataVersion)}
	return "(" + strings.Join(vals[:], ", ") + ")"
}

// upsertTail makes an INSERT of latest rows replace the rows of the same
// key. On conflict it keeps a row of a later attempt (or a later start of
// the same attempt), as the audit's ranking does, whichever statement of
// two concurrent runs comes last; MySQL's ON DUPLICATE KEY has no such
// condition, and the last statement wins.
func (g Gen) upsertTail(s plan.State) string {
	var b strings.Builder
	b.Grow(512)
	dup := g.S.Latest == LatestOnDuplicate
	if dup {
		b.WriteString("\nON DUPLICATE KEY UPDATE ")
	} else {
		b.WriteString("\nON CONFLICT (" + latestKey + ") DO UPDATE SET ")
	}
	for i, c := range latestValues {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c)
		if dup {
			b.WriteString(" = VALUES(" + c + ")")
		} else {
			b.WriteString(" = excluded." + c)
		}
	}
	if dup {
		return b.String()
	}
	// The existing row is named by the table's name (PostgreSQL finds a
	// bare column ambiguous with excluded's).
	t := g.Quote(s.Latest.Name)
	b.WriteString("\nWHERE excluded.attempt > " + t + ".attempt OR (excluded.attempt = " + t + ".attempt AND excluded.started_at >= " + t + ".started_at)")
	return b.String()
}

// LatestAbandon marks a dead run's running latest rows abandoned, as
// Abandon marks its audit rows ("" when the state has no latest table).
func LatestAbandon(g adapters.Literals, s plan.State, deadRun string) string {
	if !useLatest(g, s) {
		return ""
	}
	return fmt.Sprintf("UPDATE %s SET status = 'abandoned', error = %s\nWHERE status = 'running' AND run_id = %s",
		g.Qualify(s.Latest), g.String(abandonedError), g.String(deadRun))
}

// LatestUnclaim puts back the latest rows of units a run claimed and never
// started (UnclaimRows deletes their audit rows): the run's running rows
// go, and each unit's latest audit row, if any, is its latest row again.
// dests are the units' destinations, in the order of keys.
func LatestUnclaim(d adapters.Literals, s plan.State, runID string, keys [][2]string, dests []plan.Relation) []string {
	g, ok := genOf(d, s)
	if !ok || len(keys) == 0 {
		return nil
	}
	conds := make([]string, len(keys))
	for i, k := range keys {
		conds[i] = fmt.Sprintf("(job_name = %s AND partition_key = %s)", g.String(k[0]), g.String(k[1]))
	}
	out := []string{fmt.Sprintf("DELETE FROM %s\nWHERE run_id = %s AND status = 'running' AND (%s)", g.Qualify(s.Latest), g.String(runID), strings.Join(conds, "\n  OR "))}
	for i, k := range keys {
		q := fmt.Sprintf(`INSERT INTO %s (%s)
SELECT job_name, partition_key, %s, %s, run_id, status, row_count, started_at, ended_at, attempt, code_hash, target, as_of, error, checks, inputs, data_version FROM (
%s
  WHERE job_name = %s AND partition_key = %s
) AS latest
WHERE idemc_rank = 1`, g.Qualify(s.Latest), latestColumns, g.String(dests[i].Schema), g.String(dests[i].Name),
			rankedRows(g, g.Qualify(s.Audit)), g.String(k[0]), g.String(k[1]))
		out = append(out, q+g.upsertTail(s))
	}
	return out
}

// withLatest adds a recipe's idemc_latest upserts: the running row before
// its audit_start (a run killed between them is seen running) and the
// final row after its audit_finish, in the same transaction or script,
// with the same slots (the runner fills both from one set of values).
func (g Gen) withLatest(w *plan.Write, steps []plan.Step) []plan.Step {
	if !g.LatestTable() || w.State.Latest.Name == "" {
		return steps
	}
	out := make([]plan.Step, 0, len(steps)+2)
	tail := g.upsertTail(w.State)
	for _, s := range steps {
		switch s.Purpose {
		case plan.AuditStart:
			out = append(out, plan.Step{Purpose: plan.LatestStart, Comment: "the unit's latest state: running (committed on its own)",
				SQL: g.latestUpsert(w.State, latestOf(w, "running"), "NULL", "NULL", "NULL", "NULL", tail), Deferred: s.Deferred}, s)
		case plan.AuditFinish:
			q := g.LatestFinish(w.State, latestOf(w, "succeeded"), plan.Token(plan.SlotRows), plan.Token(plan.SlotEndedAt), "NULL", plan.Token(plan.SlotChecks))
			out = append(out, s, plan.Step{Purpose: plan.LatestEnd, Comment: "the unit's latest state, with its audit row",
				SQL: q, Slots: s.Slots, Deferred: s.Deferred})
		default:
			out = append(out, s)
		}
	}
	return out
}

// latestOf is the write's audit row with its destination: the runner's
// (a copy built aside keeps the destination's), else the write's target.
func latestOf(w *plan.Write, status string) *plan.AuditRow {
	r := auditOf(w, status)
	if r.Dest == (plan.Relation{}) {
		r.Dest = w.Target
	}
	return r
}

// LatestDestinations lists the destinations idemc_latest records, with
// the job that wrote each: (dest_schema, dest_name, job_name). Rows filled
// from an older audit table, which has none, are left out.
func LatestDestinations(g adapters.Literals, s plan.State) string {
	return fmt.Sprintf("SELECT DISTINCT dest_schema, dest_name, job_name FROM %s\nWHERE dest_name <> ''\nORDER BY dest_schema, dest_name, job_name", g.Qualify(s.Latest))
}

// LatestForget deletes the latest rows of a destination (clean --orphans,
// once it dropped the relation).
func LatestForget(g adapters.Literals, s plan.State, schema, name string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE dest_schema = %s AND dest_name = %s", g.Qualify(s.Latest), g.String(schema), g.String(name))
}
