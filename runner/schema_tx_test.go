package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	mysqldialect "github.com/idemc/idemc/adapters/mysql/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// purposes lists a recipe's step purposes.
func purposes(steps []plan.Step) string { return dialecttest.Purposes(steps) }

// On MySQL a column change is written to a copy, checked, swapped in, and
// only then recorded: nothing touches the destination before the swap.
// The session lock is taken without a BEGIN: the copy's DDL would commit
// that transaction at once (dialecttest.CheckComposed).
func TestAsideSteps(t *testing.T) {
	d := mysqldialect.NewDialect()
	r := &run{d: d}
	w := &plan.Write{Model: "daily", Materialized: plan.Incremental, Strategy: "delete_insert", PartitionBy: "d",
		Target: plan.Relation{Schema: "s", Name: "daily"}, Select: "SELECT 1", Columns: []string{"d", "y"},
		Window: &plan.Window{Key: "2026-07-01", Granularity: "day"}, Checks: []*plan.Check{{Name: "c", Kind: plan.CheckMinRows, MinRows: 1}},
		State: plan.StateIn("s")}
	alter := plan.Step{Purpose: plan.SchemaStep, SQL: d.AddColumn(plan.Relation{Schema: "s", Name: "daily__idemc_new"}, plan.Column{Name: "y", Type: "INT"})}
	steps := asideRecipe(r.d, w, alter)
	got := purposes(steps)
	want := "latest_start audit_start lock schema schema schema schema schema begin delete insert validate check commit publish cleanup begin audit_finish latest_end commit cleanup cleanup"
	if got != want {
		t.Fatalf("purposes:\n got %s\nwant %s", got, want)
	}
	swapped := false
	dest := d.Qualify(w.Target)
	for _, s := range steps {
		if s.Purpose == plan.Publish {
			swapped = true
			continue
		}
		// Before the swap only the copy is written (the audit table aside).
		if !swapped && s.Purpose != plan.Lock && strings.Contains(s.SQL, dest+" ") && !strings.Contains(s.SQL, "SELECT * FROM "+dest) {
			t.Errorf("step %s touches the destination before the swap:\n%s", s.Purpose, s.SQL)
		}
	}
}

// asideRecipe is the recipe of w with alters going to a copy of its
// destination (with its rows), after its leading prepare steps.
func asideRecipe(d adapters.Dialect, w *plan.Write, alters ...plan.Step) []plan.Step {
	cw := *w
	cw.Schema = &plan.SchemaChange{Alters: alters, Aside: true, CopyRows: true}
	steps := sqlgen.Recipe(d, &cw)
	return steps[sqlgen.LeadingPrepare(steps):]
}
