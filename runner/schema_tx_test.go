package runner

import (
	"strings"
	"testing"

	mysqldialect "github.com/idemc/idemc/adapters/mysql/dialect"
	"github.com/idemc/idemc/plan"
)

func purposes(steps []plan.Step) string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s.Purpose)
	}
	return strings.Join(out, " ")
}

// The schema steps go right after BEGIN and the unit's lock, before the
// write; a recipe without BEGIN is left alone.
func TestSpliceSchema(t *testing.T) {
	ddl := []plan.Step{{Purpose: plan.SchemaStep}}
	st := func(ps ...plan.Purpose) []plan.Step {
		out := make([]plan.Step, len(ps))
		for i, p := range ps {
			out[i] = plan.Step{Purpose: p}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		steps []plan.Step
		want  string
	}{
		{"with a lock", st(plan.Prepare, plan.AuditStart, plan.Begin, plan.Lock, plan.Delete, plan.Insert, plan.Commit),
			"prepare audit_start begin lock schema delete insert commit"},
		{"without a lock", st(plan.AuditStart, plan.Begin, plan.Publish, plan.Commit), "audit_start begin schema publish commit"},
		{"no transaction", st(plan.AuditStart, plan.Publish, plan.AuditFinish), "audit_start publish audit_finish"},
	} {
		if got := purposes(spliceSchema(c.steps, 0, ddl)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}

// On MySQL a column change is written to a copy, checked, swapped in, and
// only then recorded: nothing touches the destination before the swap.
func TestAsideSteps(t *testing.T) {
	d := mysqldialect.NewDialect()
	r := &run{d: d}
	w := &plan.Write{Model: "daily", Materialized: plan.Incremental, Strategy: "delete_insert", PartitionBy: "d",
		Target: plan.Relation{Schema: "s", Name: "daily"}, Select: "SELECT 1", Columns: []string{"d", "y"},
		Window: &plan.Window{Key: "2026-07-01", Granularity: "day"}, Checks: []*plan.Check{{Name: "c", Kind: plan.CheckMinRows, MinRows: 1}},
		State: plan.StateIn("s")}
	alter := plan.Step{Purpose: plan.SchemaStep, SQL: d.AddColumn(plan.Relation{Schema: "s", Name: "daily__idemc_new"}, plan.Column{Name: "y", Type: "INT"})}
	steps := r.asideSteps(d, w, d.Recipe(w), []plan.Step{alter}, true)
	got := purposes(steps)
	want := "audit_start begin lock schema schema schema schema schema begin delete insert validate check commit publish cleanup begin audit_finish commit cleanup cleanup"
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
