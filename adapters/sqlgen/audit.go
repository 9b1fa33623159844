package sqlgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// The run table's statements and the state queries are the same SQL on
// every engine once names and values are spelled: functions of the
// dialect's Literals, not Dialect methods.

// StateDDL creates idemc_audit and idemc_state.
func (g Gen) StateDDL(s plan.State) []string {
	t, n, ts := g.S.Text, or(g.S.BigInt, "BIGINT"), or(g.S.Timestamp, "TIMESTAMP")
	k := t
	if g.S.KeyText != "" {
		k = g.S.KeyText
	}
	index, markIndex := "", ""
	if g.S.AuditIndex {
		index = ",\n  KEY idemc_audit_unit (job_name, partition_key, run_id)"
		markIndex = ",\n  KEY idemc_state_job (job_name)"
	}
	var out []string
	if sc := g.CreateSchema(s.Audit); sc != "" {
		out = append(out, sc)
	}
	out = append(out,
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  run_id %s NOT NULL,
  job_name %s NOT NULL,
  partition_key %s NOT NULL,
  status %s NOT NULL,
  row_count %s,
  started_at %s,
  ended_at %s,
  attempt %s,
  code_hash %s,
  git_commit %s,
  target %s,
  as_of %s,
  error %s,
  checks %s,
  inputs %s,
  data_version %s%s
)%s`, g.Qualify(s.Audit), k, k, k, k, n, ts, ts, n, t, t, t, ts, t, t, t, t, index, g.tableOptions()),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  job_name %s NOT NULL,
  high_water %s,
  run_id %s,
  updated_at %s%s
)%s`, g.Qualify(s.Marks), k, t, t, ts, markIndex, g.tableOptions()),
		fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (
  run_id %s NOT NULL,
  command %s,
  options %s,
  target %s,
  as_of %s,
  git_commit %s,
  started_at %s,
  ended_at %s,
  outcome %s,
  retry_of %s,
  succeeded %s,
  failed %s,
  skipped %s
)%s`, g.Qualify(s.Runs), k, t, t, t, ts, t, ts, ts, t, t, n, n, n, g.tableOptions()))
	return append(out, g.LatestDDL(s)...)
}

// tableOptions follow a CREATE TABLE's column list: " USING DELTA" on Spark.
func (g Gen) tableOptions() string {
	if g.S.TableOptions == "" {
		return ""
	}
	return " " + g.S.TableOptions
}

// AuditIndex is the idempotent statement that indexes the audit table's
// unit key ("" when the spelling has none to run).
func (g Gen) AuditIndex(s plan.State) string {
	if g.S.AuditIndexDDL == nil {
		return ""
	}
	return g.S.AuditIndexDDL(s.Audit.Schema, g.Qualify(s.Audit))
}

// AuditMigrations adds the audit columns newer than the table.
func (g Gen) AuditMigrations(s plan.State, have []plan.Column) []string {
	got := map[string]bool{}
	for _, c := range have {
		got[strings.ToLower(c.Name)] = true
	}
	var out []string
	for _, c := range plan.AuditColumnsAdded() {
		if !got[c] {
			out = append(out, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s %s", g.Qualify(s.Audit), g.Quote(c), g.S.Text))
		}
	}
	return out
}

// RunStart inserts an invocation's row.
func RunStart(g adapters.Literals, s plan.State, r *plan.RunRow) string {
	return fmt.Sprintf(`INSERT INTO %s (run_id, command, options, target, as_of, git_commit, started_at, ended_at, outcome, retry_of, succeeded, failed, skipped)
VALUES (%s, %s, %s, %s, %s, %s, %s, NULL, 'running', %s, 0, 0, 0)`,
		g.Qualify(s.Runs), g.String(r.RunID), g.String(r.Command), g.String(r.Options), g.String(r.Target), tsOrNull(g, r.AsOf),
		strOrNull(g, r.GitCommit), tsOrNull(g, r.Started), strOrNull(g, r.RetryOf))
}

// RunFinish records an invocation's end.
func RunFinish(g adapters.Literals, s plan.State, r *plan.RunRow) string {
	return fmt.Sprintf("UPDATE %s SET ended_at = %s, outcome = %s, succeeded = %d, failed = %d, skipped = %d\nWHERE run_id = %s",
		g.Qualify(s.Runs), tsOrNull(g, r.Ended), g.String(r.Outcome), r.Succeeded, r.Failed, r.Skipped, g.String(r.RunID))
}

func tsOrNull(g adapters.Literals, t time.Time) string {
	if t.IsZero() {
		return "NULL"
	}
	return g.Timestamp(t)
}

func strOrNull(g adapters.Literals, s string) string {
	if s == "" {
		return "NULL"
	}
	return g.String(s)
}

// AuditStart inserts the running row. The attempt and the start are the
// row's (the runner reads every unit's last attempt in bulk before it
// starts); a plan printed before any run shows them as <attempt> and
// <started_at>, values only a run knows.
func (g Gen) AuditStart(s plan.State, r *plan.AuditRow) string {
	attempt, started := fmt.Sprint(r.Attempt), tsOrNull(g, r.Started)
	if r.Attempt <= 0 {
		attempt, started = "<attempt>", "<started_at>"
	}
	return fmt.Sprintf(`INSERT INTO %s (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version)
VALUES (%s, %s, %s, 'running', NULL, %s, NULL, %s, %s, %s, %s, %s, NULL, NULL, %s, %s)`,
		g.Qualify(s.Audit), g.String(r.RunID), g.String(r.Job), g.String(r.Partition), started, attempt,
		g.String(r.CodeHash), strOrNull(g, r.GitCommit), g.String(r.Target), tsOrNull(g, r.AsOf), strOrNull(g, r.Inputs), strOrNull(g, r.DataVersion))
}

// AuditStartRows inserts the running rows of several units in one
// statement (the runner's claim of units ready together, runner/claims.go).
func AuditStartRows(g adapters.Literals, s plan.State, rows []*plan.AuditRow) string {
	values := make([]string, len(rows))
	for i, r := range rows {
		values[i] = fmt.Sprintf("(%s, %s, %s, 'running', NULL, %s, NULL, %d, %s, %s, %s, %s, NULL, NULL, %s, %s)",
			g.String(r.RunID), g.String(r.Job), g.String(r.Partition), tsOrNull(g, r.Started), r.Attempt,
			g.String(r.CodeHash), strOrNull(g, r.GitCommit), g.String(r.Target), tsOrNull(g, r.AsOf), strOrNull(g, r.Inputs), strOrNull(g, r.DataVersion))
	}
	return fmt.Sprintf("INSERT INTO %s (%s)\nVALUES %s", g.Qualify(s.Audit), auditColumns, strings.Join(values, ",\n"))
}

// UnclaimRows deletes the running rows of units a run claimed and never
// started (keys are job and partition).
func UnclaimRows(g adapters.Literals, s plan.State, runID string, keys [][2]string) string {
	conds := make([]string, len(keys))
	for i, k := range keys {
		conds[i] = fmt.Sprintf("(job_name = %s AND partition_key = %s)", g.String(k[0]), g.String(k[1]))
	}
	return fmt.Sprintf("DELETE FROM %s\nWHERE run_id = %s AND status = 'running' AND (%s)", g.Qualify(s.Audit), g.String(runID), strings.Join(conds, "\n  OR "))
}

// AuditFinish sets the final status of the unit's running row.
func (g Gen) AuditFinish(s plan.State, r *plan.AuditRow, countSQL string) string {
	count := "NULL"
	if countSQL != "" {
		count = "(" + countSQL + ")"
	}
	return g.auditFinish(s, r, count, tsOrNull(g, r.Ended), strOrNull(g, r.Error), strOrNull(g, r.Checks))
}

// AuditFinishSlots is a recipe's audit_finish: the row count, the end and
// the checks are slots (plan.Step.Slots) that the runner fills once the
// write ran, so that the recipe printed and written to target/compiled is
// the one that runs.
func (g Gen) AuditFinishSlots(s plan.State, r *plan.AuditRow) (string, []string) {
	return g.auditFinish(s, r, plan.Token(plan.SlotRows), plan.Token(plan.SlotEndedAt), "NULL", plan.Token(plan.SlotChecks)),
		[]string{plan.SlotRows, plan.SlotEndedAt, plan.SlotChecks}
}

func (g Gen) auditFinish(s plan.State, r *plan.AuditRow, count, ended, errSQL, checks string) string {
	if g.S.AuditAppendOnly {
		return g.auditFinishRow(s, r, count, ended, errSQL, checks)
	}
	return fmt.Sprintf(`UPDATE %s SET status = %s, row_count = %s, ended_at = %s, error = %s, checks = %s
WHERE run_id = %s AND job_name = %s AND partition_key = %s`,
		g.Qualify(s.Audit), g.String(r.Status), count, ended, errSQL, checks,
		g.String(r.RunID), g.String(r.Job), g.String(r.Partition))
}

// RunningQuery lists the runs with running rows.
func RunningQuery(g adapters.Literals, s plan.State) string {
	if appendOnly(g) {
		return fmt.Sprintf("SELECT DISTINCT run_id FROM (\n%s\n) AS latest\nWHERE idemc_rank = 1 AND status = 'running'", latestRows(g, s))
	}
	t := s.Audit
	if useLatest(g, s) {
		// Every running audit row has its latest row, written before it.
		t = s.Latest
	}
	return fmt.Sprintf("SELECT DISTINCT run_id FROM %s WHERE status = 'running'", g.Qualify(t))
}

// abandonedError is a dead run's unit's error.
const abandonedError = "the run that started this unit ended without finishing it (killed or crashed); its write was rolled back"

// Abandon marks a dead run's running rows; append-only, it adds an
// abandoned row after each unit of that run whose latest row is running.
func Abandon(g adapters.Literals, s plan.State, deadRun string) string {
	if appendOnly(g) {
		return fmt.Sprintf(`INSERT INTO %s (%s)
SELECT run_id, job_name, partition_key, 'abandoned', row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, %s, checks, inputs, data_version FROM (
%s
) AS latest
WHERE idemc_rank = 1 AND status = 'running' AND run_id = %s`, g.Qualify(s.Audit), auditColumns, g.String(abandonedError), latestRows(g, s), g.String(deadRun))
	}
	return fmt.Sprintf("UPDATE %s SET status = 'abandoned', error = %s\nWHERE status = 'running' AND run_id = %s",
		g.Qualify(s.Audit), g.String(abandonedError), g.String(deadRun))
}

// MarksQuery lists the watermark models' high-water marks.
func MarksQuery(g adapters.Literals, s plan.State) string {
	return fmt.Sprintf("SELECT job_name, high_water FROM %s", g.Qualify(s.Marks))
}

// StatusQuery returns the latest audit row of every unit.
func StatusQuery(g adapters.Literals, s plan.State) string {
	return StatusQueryOf(g, s, nil, nil)
}

// StatusQueryOf is StatusQuery for the units of the given jobs (all when
// nil) and partitions (all when nil): filtered before the ranking, so
// that an index on the unit key (AuditIndex) makes one partition's status
// cost that partition's rows, not the whole history's.
func StatusQueryOf(g adapters.Literals, s plan.State, jobs, partitions []string) string {
	var where []string
	for _, f := range []struct {
		col  string
		vals []string
	}{{"job_name", jobs}, {"partition_key", partitions}} {
		if f.vals == nil {
			continue
		}
		lits := make([]string, len(f.vals))
		for i, v := range f.vals {
			lits[i] = g.String(v)
		}
		where = append(where, fmt.Sprintf("%s IN (%s)", f.col, strings.Join(lits, ", ")))
	}
	ranked := unitRows(g, s)
	if len(where) > 0 {
		ranked += "\n  WHERE " + strings.Join(where, " AND ")
	}
	return fmt.Sprintf(`SELECT job_name, partition_key, status, row_count, attempt, started_at, ended_at, run_id, code_hash, error, inputs, data_version, as_of FROM (
%s
) AS latest
WHERE idemc_rank = 1
ORDER BY job_name, partition_key`, ranked)
}

// unitRows ranks each unit's rows, its latest first: idemc_latest's few
// rows per unit where the state has it, else the whole audit history.
func unitRows(g adapters.Literals, s plan.State) string {
	if useLatest(g, s) {
		return rankedRows(g, g.Qualify(s.Latest))
	}
	return latestRows(g, s)
}

// latestRows ranks every unit's audit rows, its latest first
// (idemc_rank = 1): the highest attempt, the latest start; append-only, an
// attempt's final row before its running row (they share the start).
func latestRows(g adapters.Literals, s plan.State) string {
	if appendOnly(g) {
		return fmt.Sprintf(`  SELECT a.*, row_number() OVER (PARTITION BY job_name, partition_key ORDER BY %s) AS idemc_rank
  FROM %s AS a`, rankOrder+", CASE WHEN status = 'running' THEN 1 ELSE 0 END, ended_at DESC", g.Qualify(s.Audit))
	}
	return rankedRows(g, g.Qualify(s.Audit))
}

// rankOrder orders a unit's rows, its latest first.
const rankOrder = "attempt DESC, started_at DESC"

// rankedRows ranks the rows of table (the audit table, or idemc_latest,
// which has a row per destination of a unit) by unit, its latest first.
func rankedRows(g adapters.Literals, table string) string {
	return fmt.Sprintf(`  SELECT a.*, row_number() OVER (PARTITION BY job_name, partition_key ORDER BY %s) AS idemc_rank
  FROM %s AS a`, rankOrder, table)
}

// auditColumns are the audit row's columns, in the order the statements
// here write them.
const auditColumns = "run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, git_commit, target, as_of, error, checks, inputs, data_version"

// appendOnly reports a dialect whose audit rows are never updated
// (Spelling.AuditAppendOnly).
func appendOnly(g adapters.Literals) bool {
	a, ok := g.(interface{ AuditAppendOnly() bool })
	return ok && a.AuditAppendOnly()
}

// AuditAppendOnly reports Spelling.AuditAppendOnly.
func (g Gen) AuditAppendOnly() bool { return g.S.AuditAppendOnly }

// auditFinishRow is auditFinish as a row of its own: the unit's row with
// its final status, inserted after its running row. BigQuery runs
// concurrent INSERTs into one table without conflicts, while its mutating
// DML (UPDATE, DELETE, MERGE) of one table conflicts and is cancelled
// (cloud.google.com/bigquery/docs/data-manipulation-language, "Concurrent
// jobs"): every unit's end updated the one shared audit table (issue 12).
func (g Gen) auditFinishRow(s plan.State, r *plan.AuditRow, count, ended, errSQL, checks string) string {
	attempt, started := fmt.Sprint(r.Attempt), tsOrNull(g, r.Started)
	if r.Attempt <= 0 {
		attempt, started = "<attempt>", "<started_at>" // as AuditStart prints them
	}
	return fmt.Sprintf(`INSERT INTO %s (%s)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s`,
		g.Qualify(s.Audit), auditColumns, g.String(r.RunID), g.String(r.Job), g.String(r.Partition), g.String(r.Status), count,
		started, ended, attempt, g.String(r.CodeHash), strOrNull(g, r.GitCommit), g.String(r.Target), tsOrNull(g, r.AsOf),
		errSQL, checks, strOrNull(g, r.Inputs), strOrNull(g, r.DataVersion))
}

// LastRunQuery returns the most recent retryable run (run ids are
// time-ordered).
func LastRunQuery(g adapters.Literals, s plan.State) string {
	r := g.Qualify(s.Runs)
	return fmt.Sprintf("SELECT run_id, command, options, as_of, outcome, retry_of FROM %s\nWHERE command IN ('build', 'run', 'seed', 'retry')\nORDER BY run_id DESC\nLIMIT 1", r)
}

// DiffQuery lists up to a sample of rows present on one side only,
// compared on cols (nil: every column; verify leaves out the lineage
// columns, which differ by design).
func DiffQuery(g adapters.Literals, r plan.Relation, where string, snap plan.Relation, cols []string) string {
	list := "*"
	if cols != nil {
		q := make([]string, len(cols))
		for i, c := range cols {
			q[i] = g.Quote(c)
		}
		list = strings.Join(q, ", ")
	}
	now := "SELECT " + list + " FROM " + g.Qualify(r) + " AS t"
	if where != "" {
		now += " WHERE " + where
	}
	before := "SELECT " + list + " FROM " + g.Qualify(snap)
	return fmt.Sprintf("SELECT 'now' AS side, x.* FROM (%s EXCEPT ALL %s) AS x\nUNION ALL\nSELECT 'before' AS side, y.* FROM (%s EXCEPT ALL %s) AS y\nLIMIT %d",
		now, before, before, now, SampleLimit)
}
