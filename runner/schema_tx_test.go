package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	mysqldialect "github.com/idemc/idemc/adapters/mysql/dialect"
)

func purposes(steps []adapters.Step) string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s.Purpose)
	}
	return strings.Join(out, " ")
}

// The schema steps go right after BEGIN and the unit's lock, before the
// write; a recipe without BEGIN is left alone.
func TestSpliceSchema(t *testing.T) {
	ddl := []adapters.Step{{Purpose: adapters.SchemaStep}}
	st := func(ps ...adapters.Purpose) []adapters.Step {
		out := make([]adapters.Step, len(ps))
		for i, p := range ps {
			out[i] = adapters.Step{Purpose: p}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		steps []adapters.Step
		want  string
	}{
		{"with a lock", st(adapters.Prepare, adapters.AuditStart, adapters.Begin, adapters.Lock, adapters.Delete, adapters.Insert, adapters.Commit),
			"prepare audit_start begin lock schema delete insert commit"},
		{"without a lock", st(adapters.AuditStart, adapters.Begin, adapters.Publish, adapters.Commit), "audit_start begin schema publish commit"},
		{"no transaction", st(adapters.AuditStart, adapters.Publish, adapters.AuditFinish), "audit_start publish audit_finish"},
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
	w := &adapters.Write{Model: "daily", Materialized: adapters.Incremental, Strategy: "delete_insert", PartitionBy: "d",
		Target: adapters.Relation{Schema: "s", Name: "daily"}, Select: "SELECT 1", Columns: []string{"d", "y"},
		Window: &adapters.Window{Key: "2026-07-01", Granularity: "day"}, Checks: []*adapters.Check{{Name: "c", Kind: adapters.CheckMinRows, MinRows: 1}},
		State: adapters.StateIn("s")}
	alter := adapters.Step{Purpose: adapters.SchemaStep, SQL: d.AddColumn(adapters.Relation{Schema: "s", Name: "daily__idemc_new"}, adapters.Column{Name: "y", Type: "INT"})}
	steps := r.asideSteps(d, w, []adapters.Step{alter}, true)
	got := purposes(steps)
	want := "audit_start begin lock schema schema schema schema schema begin delete insert validate check commit publish cleanup begin audit_finish commit cleanup cleanup"
	if got != want {
		t.Fatalf("purposes:\n got %s\nwant %s", got, want)
	}
	swapped := false
	dest := d.Qualify(w.Target)
	for _, s := range steps {
		if s.Purpose == adapters.Publish {
			swapped = true
			continue
		}
		// Before the swap only the copy is written (the audit table aside).
		if !swapped && s.Purpose != adapters.Lock && strings.Contains(s.SQL, dest+" ") && !strings.Contains(s.SQL, "SELECT * FROM "+dest) {
			t.Errorf("step %s touches the destination before the swap:\n%s", s.Purpose, s.SQL)
		}
	}
}
