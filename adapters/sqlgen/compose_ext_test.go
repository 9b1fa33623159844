package sqlgen_test

import (
	"slices"
	"testing"
	"time"

	duckdb "github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TestRecipeInTransaction: where DDL is transactional, a schema change's
// alters run right after BEGIN, with the recipe's prepare steps among them
// where the change recreates the table (Reprepare: kept before the
// transaction too) or replaces the relation (MovePrepare: only there).
func TestRecipeInTransaction(t *testing.T) {
	d := duckdb.NewDialect()
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "e", Materialized: plan.Incremental, Strategy: "delete_insert", Target: plan.Relation{Schema: "s", Name: "e"},
		PartitionBy: "d", Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
		Select: "SELECT 1 AS d", State: plan.StateIn("s")}
	plain := d.Recipe(w)
	np := sqlgen.LeadingPrepare(plain)
	if np == 0 {
		t.Fatal("the incremental recipe has no prepare step to place")
	}
	var prepared []string
	for _, s := range plain[:np] {
		prepared = append(prepared, s.SQL)
	}
	drop, view := plan.Step{Purpose: plan.SchemaStep, SQL: "DROP TABLE s.e"}, plan.Step{Purpose: plan.SchemaStep, SQL: "CREATE VIEW s.v AS SELECT * FROM s.e"}
	want := append(append([]string{drop.SQL}, prepared...), view.SQL)
	for _, c := range []struct {
		name   string
		ch     plan.SchemaChange
		before int // prepare steps left before the transaction
		alters []string
	}{
		{"a new column", plan.SchemaChange{Alters: []plan.Step{drop}}, np, []string{drop.SQL}},
		{"recreated: the prepare steps again after the drop", plan.SchemaChange{Alters: []plan.Step{drop, view}, Reprepare: true, ReprepareAt: 1}, np, want},
		{"replaced: the prepare steps only after the drop", plan.SchemaChange{Alters: []plan.Step{drop, view}, Reprepare: true, ReprepareAt: 1, MovePrepare: true}, 0, want},
	} {
		cw := *w
		cw.Schema = &c.ch
		steps := sqlgen.Recipe(d, &cw)
		if got := sqlgen.LeadingPrepare(steps); got != c.before {
			t.Errorf("%s: %d prepare steps before the transaction, want %d", c.name, got, c.before)
		}
		begin := slices.IndexFunc(steps, func(s plan.Step) bool { return s.Purpose == plan.Begin })
		var got []string
		for _, s := range steps[begin+1:] {
			if s.Purpose != plan.SchemaStep {
				break
			}
			got = append(got, s.SQL)
		}
		if !slices.Equal(got, c.alters) {
			t.Errorf("%s: the schema steps right after BEGIN are\n%q\nwant\n%q", c.name, got, c.alters)
		}
		if len(steps) != len(plain)+len(c.alters)-(np-c.before) {
			t.Errorf("%s: %d steps, want the recipe's %d with the alters", c.name, len(steps), len(plain))
		}
	}
}
