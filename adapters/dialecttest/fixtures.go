package dialecttest

import (
	"strings"
	"time"

	"github.com/idemc/idemc/plan"
)

// DayWrite is the engine tests' common write: events_daily's 2026-07-02
// partition with a unique check, in schema analytics. Engine tests adjust
// what their engine spells differently (quoting, column case, more checks).
func DayWrite(strategy string) *plan.Write {
	start := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	return &plan.Write{
		Model: "events_daily", Materialized: plan.Incremental, Strategy: strategy,
		Target:      plan.Relation{Schema: "analytics", Name: "events_daily"},
		Select:      "SELECT event_key, event_date, amount FROM raw.events WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'",
		PartitionBy: "event_date", Window: &plan.Window{Start: start, End: start.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
		Columns: []string{"event_key", "event_date", "amount"},
		Checks: []*plan.Check{
			{Name: "unique(event_key)", Kind: plan.CheckUnique, Severity: "error", Columns: []string{"event_key"}},
		},
		State: plan.StateIn("analytics"),
		Audit: &plan.AuditRow{RunID: "r1", Job: "events_daily", Partition: "2026-07-02", Attempt: 3},
	}
}

// MinRowsWarn is a warn-severity min_rows(1) check, which engines run after
// their write's commit.
func MinRowsWarn() *plan.Check {
	return &plan.Check{Name: "min_rows(1)", Kind: plan.CheckMinRows, Severity: "warn", MinRows: 1}
}

// Purposes lists a recipe's step purposes, space-separated, for shape
// assertions.
func Purposes(steps []plan.Step) string {
	ps := make([]string, len(steps))
	for i, s := range steps {
		ps[i] = string(s.Purpose)
	}
	return strings.Join(ps, " ")
}
