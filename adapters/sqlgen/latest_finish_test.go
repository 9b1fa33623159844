package sqlgen_test

import (
	"database/sql"
	"fmt"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	duckdb "github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TestLatestFinishAsUpsert runs a recipe's latest_end both ways on DuckDB
// — the UPDATE by key and run id it is now, and the upsert it replaced —
// after the starts that can precede it, and wants the same idemc_latest:
// the unit's own running row finished, a later attempt of another run
// left alone (issue 18 item 3: the upsert was a unit's dearest statement).
func TestLatestFinishAsUpsert(t *testing.T) {
	at := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	row := func(run string, attempt int64, started time.Time) *plan.AuditRow {
		return &plan.AuditRow{RunID: run, Job: "daily", Partition: "2026-07-02", CodeHash: "h", Target: "t", Attempt: attempt,
			Started: started, Dest: plan.Relation{Schema: "main", Name: "daily"}}
	}
	cases := []struct {
		name   string
		starts []*plan.AuditRow // latest_start rows, in order; the first is the finishing run's
		want   string           // run_id|status|attempt of the latest row after r1 finishes
	}{
		{"own running row", []*plan.AuditRow{row("r1", 1, at)}, "r1|succeeded|1"},
		{"a later attempt of another run", []*plan.AuditRow{row("r1", 1, at), row("r2", 2, at.Add(time.Second))}, "r2|running|2"},
		{"the same attempt started later by another run", []*plan.AuditRow{row("r1", 1, at), row("r2", 1, at.Add(time.Second))}, "r2|running|1"},
		{"a retry of its own", []*plan.AuditRow{row("r1", 1, at), row("r1", 2, at.Add(time.Second))}, "r1|succeeded|2"},
	}
	d := duckdb.NewDialect()
	st := plan.StateIn("main")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mine := c.starts[len(c.starts)-1]
			if mine.RunID != "r1" {
				mine = c.starts[0]
			}
			fin := *mine
			fin.Status, fin.Ended = "succeeded", at.Add(time.Minute)
			got := map[string]string{}
			for form, finish := range map[string]string{
				"update": d.Gen.LatestFinish(st, &fin, "7", "NULL", "NULL", "NULL"),
				"upsert": d.Gen.LatestUpsert(st, &fin, "7", "NULL", "NULL", "NULL"),
			} {
				db := openDuck(t)
				for _, q := range d.StateDDL(st) {
					mustExec(t, db, q)
				}
				for _, r := range c.starts {
					mustExec(t, db, sqlgen.LatestRunning(d, st, r))
				}
				mustExec(t, db, finish)
				var run, status string
				var attempt, n int
				if err := db.QueryRow(`SELECT run_id, status, attempt, (SELECT count(*) FROM main.idemc_latest) FROM main.idemc_latest`).Scan(&run, &status, &attempt, &n); err != nil {
					t.Fatal(err)
				}
				if n != 1 {
					t.Fatalf("%s: %d latest rows, want 1", form, n)
				}
				got[form] = fmt.Sprintf("%s|%s|%d", run, status, attempt)
			}
			if got["update"] != c.want || got["upsert"] != c.want {
				t.Errorf("latest row after r1's finish: update %s, upsert %s; want %s", got["update"], got["upsert"], c.want)
			}
		})
	}
}

func openDuck(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%v\n%s", err, q)
	}
}
