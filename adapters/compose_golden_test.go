package adapters_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// TestComposedRecipeGolden prints, for every engine, the whole recipe of
// a unit whose destination's definition changes, as sqlgen.Recipe
// composes it: a new column on a partition write and on a merge with a
// watermark (in the transaction where DDL is transactional, on a copy
// swapped in elsewhere), and a view becoming a table and a table a view.
// It compares them with testdata/compose/<engine>.sql (-update rewrites).
func TestComposedRecipeGolden(t *testing.T) {
	for _, name := range adapters.Names() {
		ad, _ := adapters.Lookup(name)
		t.Run(name, func(t *testing.T) {
			dialecttest.Golden(t, filepath.Join("testdata", "compose", name+".sql"), composedSQL(ad))
		})
	}
}

func composedSQL(ad *adapters.Adapter) string {
	state := plan.StateIn("analytics")
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	audit := func(part string) *plan.AuditRow {
		return &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: "events", Partition: part, Attempt: 1, CodeHash: "h", Target: "prod"}
	}
	check := []*plan.Check{{Name: "not_null(id)", Kind: plan.CheckNotNull, Severity: "error", Columns: []string{"id"}}}
	part := &plan.Write{Model: "events", Materialized: plan.Incremental, Strategy: "delete_insert",
		Target: plan.Relation{Schema: "analytics", Name: "events"}, PartitionBy: "d",
		Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
		Select: "SELECT id, d, amount, note FROM raw.events", Columns: []string{"id", "d", "amount", "note"},
		Checks: check, State: state, Audit: audit("2026-07-02")}
	merge := &plan.Write{Model: "events", Materialized: plan.Incremental, Strategy: "merge", UniqueKey: []string{"id"},
		Target: plan.Relation{Schema: "analytics", Name: "events"}, Watermark: &plan.WatermarkWrite{Column: "d"},
		Select: "SELECT id, d, amount, note FROM raw.events", Columns: []string{"id", "d", "amount", "note"},
		Checks: check, State: state, Audit: audit("")}
	table := &plan.Write{Model: "events", Materialized: plan.Table, Target: plan.Relation{Schema: "analytics", Name: "events"},
		Select: "SELECT id, d FROM raw.events", Columns: []string{"id", "d"}, Checks: check, State: state, Audit: audit("")}
	view := *table
	view.Materialized = plan.View
	var b strings.Builder
	for _, c := range []struct {
		title  string
		change *dialecttest.Change
	}{
		{"a partition write (delete_insert) whose model has a new column", dialecttest.NewColumn(ad, part)},
		{"a merge with a watermark whose model has a new column", dialecttest.NewColumn(ad, merge)},
		{"a view becomes a table", dialecttest.KindChange(ad, table)},
		{"a table becomes a view", dialecttest.KindChange(ad, &view)},
	} {
		if c.change == nil {
			fmt.Fprintf(&b, "-- %s: no change the runner composes on %s\n\n", c.title, ad.Name)
			continue
		}
		fmt.Fprintf(&b, "-- %s (%s)\n", c.title, c.change.Name)
		steps(&b, sqlgen.Recipe(ad.Dialect, c.change.Write))
	}
	return b.String()
}
