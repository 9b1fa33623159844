package bigquery

import (
	"context"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/bigquery/dialect"
	"github.com/idemc/idemc/plan"
)

// TestKindSwapJobs: a view that becomes an incremental table, as
// sqlgen.Recipe composes it (adapters/sqlgen/compose.go): the new table
// is created and written and checked by a script, then the swap is three
// DDL jobs of their own after that script's COMMIT (never inside it: no
// DDL on permanent tables in a transaction), and the audit row commits in
// a second script. A failing ASSERT stops the unit before any job touches
// the destination.
func TestKindSwapJobs(t *testing.T) {
	d := dialect.NewDialect()
	w := partitionWrite("delete_insert")
	aside, old := w.Target, w.Target
	aside.Name += "__idemc_new"
	old.Name += "__idemc_old"
	wa := *w
	wa.Target = aside
	body := d.Recipe(&wa)
	var steps []plan.Step
	in := false
	for _, s := range body {
		in = in || s.Purpose == plan.Begin
		if s.Purpose == plan.Prepare || in && s.Purpose != plan.AuditFinish && s.Purpose != plan.StateStep {
			steps = append(steps, s)
		}
		if s.Purpose == plan.Commit {
			break
		}
	}
	for _, q := range d.SwapKind(w, aside, old, true) {
		steps = append(steps, plan.Step{Purpose: plan.Publish, SQL: q})
	}
	steps = append(steps, plan.Step{Purpose: plan.Begin, SQL: dialect.BeginSQL}, d.AuditFinishStep(w, ""), plan.Step{Purpose: plan.Commit, SQL: dialect.CommitSQL},
		plan.Step{Purpose: plan.Cleanup, SQL: d.DropTable(aside)})
	dest := d.Qualify(w.Target)
	for _, fail := range []bool{false, true} {
		f := newFakeBigQuery(t)
		if fail {
			f.fail = func(sql string) string {
				if strings.HasPrefix(sql, dialect.BeginSQL) && strings.Contains(sql, "ASSERT") {
					return "idemc check not_null(amount) at [9:1]"
				}
				return ""
			}
		}
		s, _ := f.engine(t, "EU").Session(context.Background())
		err := runUnit(t, s, steps)
		var got []string
		for _, j := range f.submitted() {
			q := j.SQL
			switch {
			case strings.HasPrefix(q, dialect.BeginSQL):
				if strings.Contains(q, "ALTER TABLE") || strings.Contains(q, "DROP VIEW") {
					t.Errorf("DDL inside a script:\n%s", q)
				}
				got = append(got, "SCRIPT")
			case fail && strings.Contains(q, dest+" ") || fail && strings.HasSuffix(q, "`events_daily`"):
				t.Errorf("a failed unit touched the destination:\n%s", q)
			default:
				got = append(got, strings.Join(strings.Fields(q)[:2], " "))
			}
		}
		want := "CREATE TABLE | SCRIPT | ALTER TABLE | DROP VIEW | ALTER TABLE | SCRIPT | DROP TABLE"
		if fail {
			want = "CREATE TABLE | SCRIPT | DROP TABLE"
		}
		if strings.Join(got, " | ") != want || (err != nil) != fail {
			t.Errorf("failing check %v: jobs %s (err %v), want %s", fail, strings.Join(got, " | "), err, want)
		}
	}
}
