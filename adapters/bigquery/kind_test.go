package bigquery

import (
	"context"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/bigquery/dialect"
)

// TestKindSwapJobs: a view that becomes an incremental table, as the
// runner composes it (runner/schema_aside.go kindSwapSteps): the new table
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
	var steps []adapters.Step
	in := false
	for _, s := range body {
		in = in || s.Purpose == adapters.Begin
		if s.Purpose == adapters.Prepare || in && s.Purpose != adapters.AuditFinish && s.Purpose != adapters.StateStep {
			steps = append(steps, s)
		}
		if s.Purpose == adapters.Commit {
			break
		}
	}
	for _, q := range d.SwapKind(w, aside, old, true) {
		steps = append(steps, adapters.Step{Purpose: adapters.Publish, SQL: q})
	}
	steps = append(steps, adapters.Step{Purpose: adapters.Begin, SQL: dialect.BeginSQL}, d.AuditFinishStep(w, ""), adapters.Step{Purpose: adapters.Commit, SQL: dialect.CommitSQL},
		adapters.Step{Purpose: adapters.Cleanup, SQL: d.DropTable(aside)})
	dest := d.Qualify(w.Target)
	for _, fail := range []bool{false, true} {
		f := newFakeBigQuery(t)
		if fail {
			f.fail = func(sql string) string {
				if strings.HasPrefix(sql, dialect.BeginSQL) && strings.Contains(sql, "ASSERT") {
					return "idemc: check not_null(amount) failed at [9:1]"
				}
				return ""
			}
		}
		s, _ := f.engine(t, "EU").Session(context.Background())
		err := runUnit(t, s, steps)
		var got []string
		for _, j := range f.submitted() {
			q := stripDirective(j.SQL)
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
