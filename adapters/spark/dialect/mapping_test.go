package dialect

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// TestColumnMapping: every Delta table idemc creates with a column name
// Delta refuses without column mapping (a space, a comma, a parenthesis…,
// DELTA_INVALID_CHARACTERS_IN_COLUMN_NAMES) or with unknown names gets the
// mapping properties (CREATE OR REPLACE does not keep the old table's);
// plain names keep a plain table.
func TestColumnMapping(t *testing.T) {
	d := NewDialect()
	odd := []string{"select", "my key", `it's "odd"`}
	creates := func(edit func(w *plan.Write)) []string {
		w := testWrite("merge")
		w.Window, w.PartitionBy, w.UniqueKey = nil, "", []string{"select"}
		edit(w)
		var out []string
		for _, s := range d.Recipe(w) {
			if strings.HasPrefix(s.SQL, "CREATE ") && strings.Contains(s.SQL, " TABLE ") {
				out = append(out, s.SQL)
			}
		}
		return out
	}
	seedLoad := func(header string) []string {
		tab, errs := seed.Parse([]byte(header+"\n1,2\n"), nil)
		if errs != nil {
			t.Fatal(errs)
		}
		l := d.SeedLoad(plan.Relation{Schema: "raw", Name: "s"}, tab)
		return append(l.Prepare[len(l.Prepare)-1:], l.Publish[0])
	}
	for _, tc := range []struct {
		name    string
		stmts   []string
		mapping bool
	}{
		{"incremental, odd names: destination and stage", creates(func(w *plan.Write) { w.Columns = odd }), true},
		{"incremental, plain names", creates(func(w *plan.Write) {}), false},
		{"incremental, unknown names", creates(func(w *plan.Write) { w.Columns = nil }), true},
		{"table, odd names: stage and publish", creates(func(w *plan.Write) { w.Materialized, w.UniqueKey, w.Columns = plan.Table, nil, odd }), true},
		{"table, plain names", creates(func(w *plan.Write) { w.Materialized, w.UniqueKey = plan.Table, nil }), false},
		{"full refresh recreating the table, odd names", creates(func(w *plan.Write) { w.FullRefresh, w.Recreate, w.Columns = true, true, odd }), true},
		{"name with a tab", creates(func(w *plan.Write) { w.Columns = []string{"a\tb"} }), true},
		{"name with an equals sign", creates(func(w *plan.Write) { w.Columns = []string{"a=b"} }), true},
		{"seed, odd header", seedLoad("id,\"my key\""), true},
		{"seed, plain header", seedLoad("id,amount"), false},
		{"swap of a column change's copy (names unknown)", []string{d.SwapTable(plan.Relation{Schema: "a", Name: "t"}, plan.Relation{Schema: "a", Name: "t_new"}, plan.Relation{})}, true},
	} {
		if len(tc.stmts) == 0 {
			t.Errorf("%s: no CREATE TABLE", tc.name)
		}
		for _, q := range tc.stmts {
			if got := strings.Contains(q, "USING DELTA "+mappingProps); got != tc.mapping {
				t.Errorf("%s: column mapping %v, want %v:\n%s", tc.name, got, tc.mapping, q)
			}
		}
	}
}
