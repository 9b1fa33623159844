package sqlgen_test

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	duckdb "github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TestAppendOnlyAudit runs the append-only audit statements (BigQuery's
// spelling choice, issue 12) on DuckDB: a unit's end is a second row, and
// the state reads take each unit's latest row. A finished unit is not
// running, a dead run's running unit is abandoned once (by a row of its
// own), and no statement updates a row.
func TestAppendOnlyAudit(t *testing.T) {
	d := duckdb.NewDialect()
	d.Gen.S.AuditAppendOnly = true
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	st := plan.StateIn("main")
	var ran []string
	exec := func(q string) {
		t.Helper()
		ran = append(ran, q)
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
	}
	for _, q := range d.StateDDL(st) {
		exec(q)
	}
	at := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	unit := func(run, job string, status string) {
		row := &plan.AuditRow{RunID: run, Job: job, Partition: "2026-07-02", CodeHash: "h", Target: "t", Attempt: 1, Started: at}
		exec(d.AuditStart(st, row))
		if status == "" {
			return // the run died
		}
		row.Status, row.Ended = status, at.Add(time.Second)
		count := "SELECT 7"
		if status == "failed" {
			row.Error, count = "boom", ""
		}
		exec(d.AuditFinish(st, row, count))
	}
	unit("r1", "ok", "succeeded")
	unit("r1", "bad", "failed")
	unit("r2", "dead", "")
	query := func(q string) []string {
		t.Helper()
		rows, err := db.Query(q)
		if err != nil {
			t.Fatalf("%v\n%s", err, q)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		var out []string
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			var parts []string
			for _, v := range vals[:min(4, len(vals))] {
				parts = append(parts, strings.TrimSpace(strings.ReplaceAll(sqlText(v), "\n", " ")))
			}
			out = append(out, strings.Join(parts, " "))
		}
		return out
	}
	if got := strings.Join(query(sqlgen.RunningQuery(d, st)), ","); got != "r2" {
		t.Fatalf("running runs: %q, want only the dead run r2 (a finished unit's running row is not its latest)", got)
	}
	exec(sqlgen.Abandon(d, st, "r2"))
	exec(sqlgen.Abandon(d, st, "r2")) // a second run finding it again adds nothing
	if got := query(sqlgen.RunningQuery(d, st)); len(got) != 0 {
		t.Fatalf("running runs after abandoning r2: %q", got)
	}
	want := "bad 2026-07-02 failed <nil>|dead 2026-07-02 abandoned <nil>|ok 2026-07-02 succeeded 7"
	if got := strings.Join(query(sqlgen.StatusQuery(d, st)), "|"); got != want {
		t.Fatalf("latest rows:\n got %s\nwant %s", got, want)
	}
	if n := query("SELECT count(*) FROM main.idemc_audit"); n[0] != "6" {
		t.Fatalf("%s audit rows, want 6: two per unit", n[0])
	}
	for _, q := range ran {
		if strings.HasPrefix(strings.TrimSpace(q), "UPDATE") {
			t.Errorf("an append-only audit statement updates rows:\n%s", q)
		}
	}
}

func sqlText(v any) string {
	switch x := v.(type) {
	case nil:
		return "<nil>"
	case string:
		return x
	default:
		return fmt.Sprint(x)
	}
}

// TestStatusQueryOf: the status of some units reads only their rows and
// still takes each one's latest attempt.
func TestStatusQueryOf(t *testing.T) {
	d := duckdb.NewDialect()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := plan.StateIn("main")
	for _, q := range d.StateDDL(st) {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	at := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	for _, job := range []string{"a", "b"} {
		for _, part := range []string{"2026-07-01", "2026-07-02", "2026-07-03"} {
			for attempt := int64(1); attempt <= 2; attempt++ {
				row := &plan.AuditRow{RunID: fmt.Sprint("r", attempt), Job: job, Partition: part, CodeHash: "h", Target: "t", Attempt: attempt, Started: at}
				for _, q := range []string{sqlgen.LatestRunning(d, st, row), d.AuditStart(st, row)} {
					if _, err := db.Exec(q); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
	// From idemc_latest, and from the audit table's ranking (a table that
	// predates it): the same answer.
	audit := st
	audit.Latest = plan.Relation{}
	for name, st := range map[string]plan.State{"latest": st, "audit": audit} {
		q := sqlgen.StatusQueryOf(d, st, []string{"a"}, []string{"2026-07-02", ""})
		if from := st.Latest.Name; from != "" && !strings.Contains(q, from) || from == "" && strings.Contains(q, "idemc_latest") {
			t.Errorf("%s: the status query reads the wrong table:\n%s", name, q)
		}
		if got := statusOf(t, db, q); got != "a 2026-07-02 2 r2" {
			t.Errorf("%s: status of a/2026-07-02: %q, want %q", name, got, "a 2026-07-02 2 r2")
		}
	}
}

func statusOf(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var job, part, status, rc, attempt, run any
		var rest [7]any
		if err := rows.Scan(&job, &part, &status, &rc, &attempt, &rest[0], &rest[1], &run, &rest[2], &rest[3], &rest[4], &rest[5], &rest[6]); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprint(job, " ", part, " ", attempt, " ", run))
	}
	return strings.Join(got, "|")
}
