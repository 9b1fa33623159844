package dialecttest

import (
	"fmt"
	"time"

	"github.com/idemc/idemc/plan"
)

// Case is one unit of work to build a recipe for.
type Case struct {
	Name  string
	Write *plan.Write
}

// Writes is a table of units covering every materialization × strategy ×
// partitioned or not × full refresh × schema change (Recreate), with an
// error and a warn check each and a watermark on the key writes: what
// CheckEngine builds every engine's recipes for.
func Writes() []Case {
	var out []Case
	add := func(name string, w *plan.Write) { out = append(out, Case{name, w}) }
	view := base("v", plan.View, "")
	add("view", view)
	recreatedView := base("v", plan.View, "")
	recreatedView.Recreate = true
	add("view, columns changed", recreatedView)
	add("table", base("t", plan.Table, ""))
	recreatedTable := base("t", plan.Table, "")
	recreatedTable.Recreate = true
	add("table, column types changed", recreatedTable)
	for _, strategy := range []string{"delete_insert", "insert_overwrite", "append", "merge"} {
		for _, gran := range []string{"", "hour", "day", "month"} {
			for _, full := range []bool{false, true} {
				for _, recreate := range []bool{false, true} {
					if recreate && !full {
						continue // a type change recreates only on a full refresh
					}
					w := base("i", plan.Incremental, strategy)
					if gran != "" {
						partition(w, gran)
					}
					if gran == "" || strategy == "merge" {
						w.UniqueKey = []string{"id"}
						w.Watermark = &plan.WatermarkWrite{Column: "updated_at"}
					}
					w.FullRefresh, w.Recreate = full, recreate
					add(fmt.Sprintf("incremental %s, partition %q, full refresh %v, recreate %v", strategy, gran, full, recreate), w)
				}
			}
		}
	}
	return out
}

func base(name, m, strategy string) *plan.Write {
	return &plan.Write{
		Model: name, Materialized: m, Strategy: strategy,
		Target:  plan.Relation{Schema: "analytics", Name: name},
		Select:  "SELECT id, d, amount, updated_at FROM raw.events",
		Columns: []string{"id", "d", "amount", "updated_at"},
		Checks: []*plan.Check{
			{Name: "not_null(id)", Kind: plan.CheckNotNull, Severity: "error", Columns: []string{"id"}},
			{Name: "min_rows(1)", Kind: plan.CheckMinRows, Severity: "warn", MinRows: 1},
		},
		State: plan.StateIn("analytics"),
		Audit: &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: name, Attempt: 1, CodeHash: "h", Target: "t"},
	}
}

func partition(w *plan.Write, gran string) {
	start := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	end, key := start.AddDate(0, 0, 1), "2026-07-02"
	switch gran {
	case "hour":
		end, key = start.Add(time.Hour), "2026-07-02T00"
	case "month":
		start = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
		end, key = start.AddDate(0, 1, 0), "2026-07"
	}
	w.PartitionBy = "d"
	w.Window = &plan.Window{Start: start, End: end, Granularity: gran, Key: key}
	w.Audit.Partition = key
}
