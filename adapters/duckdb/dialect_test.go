package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/plan"
)

func TestSurrogateKeyMatchesSpec(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dialecttest.SurrogateKeys(t, db, dialect.NewDialect(), nil)
}

// TestRecipesRunTwice executes each recipe shape twice on an in-memory
// database and checks the destination holds one copy of the batch.
func TestRecipesRunTwice(t *testing.T) {
	ctx := context.Background()
	e, err := Open(ctx, map[string]string{"path": ":memory:"})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	s, err := e.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	d := dialect.NewDialect()
	st := plan.StateIn("main")
	for _, q := range d.StateDDL(st) {
		if _, err := adapters.ExecSQL(ctx, s, q); err != nil {
			t.Fatal(err)
		}
	}
	win := &plan.Window{Start: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC), Granularity: "day", Key: "2026-07-01"}
	sel := "SELECT * FROM (VALUES (DATE '2026-07-01', 'k1', 1), (DATE '2026-07-01', NULL, 2), (DATE '2026-06-30', 'out', 3)) AS v(d, k, x)"
	for _, tc := range []struct {
		name string
		w    plan.Write
		want int
	}{
		{"partition", plan.Write{Materialized: "incremental", Strategy: "delete_insert", PartitionBy: "d", Window: win}, 2},
		{"overwrite", plan.Write{Materialized: "incremental", Strategy: "insert_overwrite", PartitionBy: "d", Window: win}, 2},
		{"merge", plan.Write{Materialized: "incremental", Strategy: "merge", UniqueKey: []string{"k"}}, 3},
		{"bykey", plan.Write{Materialized: "incremental", Strategy: "delete_insert", UniqueKey: []string{"k"}}, 3},
		{"table", plan.Write{Materialized: "table"}, 3},
		{"view", plan.Write{Materialized: "view"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := tc.w
			w.Model, w.Select, w.State = tc.name, sel, st
			w.Target = plan.Relation{Schema: "main", Name: "t_" + tc.name}
			w.Columns = []string{"d", "k", "x"}
			for run := 1; run <= 2; run++ {
				w.Audit = &plan.AuditRow{RunID: fmt.Sprint("r", run), Job: tc.name, Attempt: int64(run), Started: time.Now()}
				for _, step := range d.Recipe(&w) {
					if step.Check != nil {
						if res, err := s.Exec(ctx, &step); err != nil || len(res.Rows) > 0 {
							t.Fatalf("run %d check %s: %v %v", run, step.Check.Name, res.Rows, err)
						}
						continue
					}
					step.SQL = step.Fill(map[string]string{plan.SlotRows: "0", plan.SlotEndedAt: d.Timestamp(time.Now()), plan.SlotChecks: "NULL"})
					if _, err := s.Exec(ctx, &step); err != nil {
						t.Fatalf("run %d step %s: %v\n%s", run, step.Purpose, err, step.SQL)
					}
				}
			}
			_, rows, err := s.Query(ctx, "SELECT count(*) FROM "+d.Qualify(w.Target), 1)
			if err != nil {
				t.Fatal(err)
			}
			if rows[0][0] != fmt.Sprint(tc.want) {
				t.Errorf("%s after two runs has %s rows, want %d", tc.name, rows[0][0], tc.want)
			}
		})
	}
}

func TestQuoting(t *testing.T) {
	d := dialect.NewDialect()
	for _, tc := range []struct{ in, quoted, literal string }{
		{`plain`, `"plain"`, `'plain'`},
		{`has "quote"`, `"has ""quote"""`, `'has "quote"'`},
		{`it's`, `"it's"`, `'it''s'`},
		{`x"; DROP TABLE t; --`, `"x""; DROP TABLE t; --"`, `'x"; DROP TABLE t; --'`},
		{`back\slash`, `"back\slash"`, `'back\slash'`},
	} {
		if got := d.Quote(tc.in); got != tc.quoted {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.quoted)
		}
		if got := d.String(tc.in); got != tc.literal {
			t.Errorf("String(%q) = %s, want %s", tc.in, got, tc.literal)
		}
	}
}
