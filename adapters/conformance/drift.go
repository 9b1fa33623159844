package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/plan"
)

// histRow is one audit row of a drift case's history.
type histRow struct {
	key, status string
	rows        int64
	ended       int // minutes after a fixed time: which attempt is latest
	run         string
}

// DriftMedian runs the drift row-count query, as the engine's dialect
// spells it (median aggregate or the middle rows by ROW_NUMBER), on a
// history the test writes: it fires exactly when the row count is out of
// bounds of the median of the latest succeeded attempts of the window
// partitions before the unit's, and reports that median.
func DriftMedian(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, map[string]string{})
	audit, dest := plan.Relation{Schema: e.schema, Name: "drift_audit"}, plan.Relation{Schema: e.schema, Name: "drift_t"}
	e.exec("CREATE SCHEMA " + e.d.Quote(e.schema))
	e.exec(fmt.Sprintf("CREATE TABLE %s (job_name VARCHAR(100), partition_key VARCHAR(100), status VARCHAR(20), row_count BIGINT, ended_at TIMESTAMP, run_id VARCHAR(100))", e.d.Qualify(audit)))
	e.exec(fmt.Sprintf("CREATE TABLE %s (d DATE)", e.d.Qualify(dest)))
	day := time.Date(2026, 7, 10, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "m", Materialized: plan.Incremental, Strategy: "delete_insert", Target: dest, PartitionBy: "d",
		Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-10"}, State: plan.State{Audit: audit}}
	// An unpartitioned model: its earlier runs, newest first, not this one (r9).
	whole := &plan.Write{Model: "m", Materialized: plan.Table, Target: dest, State: plan.State{Audit: audit}, Audit: &plan.AuditRow{RunID: "r9", Job: "m"}}
	ok := func(key string, rows int64) histRow { return histRow{key, "succeeded", rows, 0, "r1"} }
	runAt := func(ended int, rows int64, run string) histRow { return histRow{"", "succeeded", rows, ended, run} }
	tests := []struct {
		name    string
		whole   bool
		window  int
		hist    []histRow
		current int
		median  float64 // 0: the rule does not fire
	}{
		{"odd, in bounds", false, 14, []histRow{ok("2026-07-01", 10), ok("2026-07-02", 30), ok("2026-07-03", 20)}, 10, 0},
		{"odd, above", false, 14, []histRow{ok("2026-07-01", 10), ok("2026-07-02", 30), ok("2026-07-03", 20)}, 41, 20},
		{"even, below", false, 14, []histRow{ok("2026-07-01", 40), ok("2026-07-02", 10), ok("2026-07-03", 30), ok("2026-07-04", 20)}, 12, 25},
		{"too little history", false, 14, []histRow{ok("2026-07-01", 100), ok("2026-07-02", 100)}, 1, 0},
		{"latest succeeded attempt, earlier partitions only", false, 14, []histRow{
			ok("2026-07-01", 10), ok("2026-07-02", 20), {"2026-07-03", "succeeded", 1000, -5, "r0"}, ok("2026-07-03", 30),
			{"2026-07-03", "failed", 5000, 5, "r2"}, {"2026-07-04", "running", 7000, 6, "r3"}, ok("2026-07-11", 9999), ok("2026-07-10", 9999)}, 100, 20},
		{"window", false, 3, []histRow{ok("2026-07-01", 1000), ok("2026-07-02", 1000), ok("2026-07-03", 10), ok("2026-07-04", 30), ok("2026-07-05", 20)}, 5, 20},
		{"other model", false, 14, []histRow{ok("2026-07-01", 10)}, 0, 0},
		{"unpartitioned: last runs", true, 3, []histRow{runAt(1, 1000, "r1"), runAt(2, 10, "r2"), runAt(3, 20, "r3"), runAt(4, 30, "r4"),
			runAt(9, 1000, "r9"), {"", "failed", 1, 8, "r8"}}, 100, 20},
		{"unpartitioned: in bounds", true, 14, []histRow{runAt(1, 10, "r1"), runAt(2, 20, "r2"), runAt(3, 30, "r3")}, 11, 0},
	}
	base := time.Date(2026, 7, 20, 0, 0, 0, 0, time.UTC)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e.t = t // the helpers fail this case, not the parent
			e.exec("DELETE FROM " + e.d.Qualify(audit))
			e.exec("DELETE FROM " + e.d.Qualify(dest))
			for _, h := range tt.hist {
				e.exec(fmt.Sprintf("INSERT INTO %s VALUES ('m', '%s', '%s', %d, %s, '%s')", e.d.Qualify(audit), h.key, h.status, h.rows, e.d.Timestamp(base.Add(time.Duration(h.ended)*time.Minute)), h.run))
			}
			if len(tt.hist) > 0 && tt.name == "other model" {
				e.exec(fmt.Sprintf("UPDATE %s SET job_name = 'other'", e.d.Qualify(audit)))
			}
			if tt.current > 0 {
				vals := strings.TrimSuffix(strings.Repeat("(DATE '2026-07-10'), ", tt.current), ", ") // in the window, and the whole table
				e.exec(fmt.Sprintf("INSERT INTO %s VALUES %s", e.d.Qualify(dest), vals))
			}
			c := &plan.Check{Name: "drift.row_count", Kind: plan.CheckDriftRowCount, Severity: "warn", Window: tt.window, MinRatio: 0.5, MaxRatio: 2}
			wr := w
			if tt.whole {
				wr = whole
			}
			q := e.d.CheckQuery(c, wr, false)
			rows := e.query(q)
			switch {
			case tt.median == 0 && len(rows) > 0:
				t.Fatalf("the rule fired: %v\n%s", rows, q)
			case tt.median == 0:
				return
			case len(rows) != 1:
				t.Fatalf("the rule did not fire (rows %v)\n%s", rows, q)
			}
			got, err := strconv.ParseFloat(rows[0][1], 64)
			if err != nil || got != tt.median || rows[0][0] != strconv.Itoa(tt.current) {
				t.Fatalf("row_count %s, median %s; want %d and %g\n%s", rows[0][0], rows[0][1], tt.current, tt.median, q)
			}
		})
	}
}
