package sqlgen_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	duckdb "github.com/idemc/idemc/adapters/duckdb/dialect"
	mysql "github.com/idemc/idemc/adapters/mysql/dialect"
	postgres "github.com/idemc/idemc/adapters/postgres/dialect"
	"github.com/idemc/idemc/plan"
)

// TestDriftQuery: the drift rules' check queries, one builder with each
// engine's median; what the history reads for a partition and for an
// unpartitioned model.
func TestDriftQuery(t *testing.T) {
	day := time.Date(2026, 7, 5, 0, 0, 0, 0, time.UTC)
	part := &plan.Write{Model: "daily", Materialized: plan.Incremental, Strategy: "delete_insert", Target: plan.Relation{Schema: "s", Name: "daily"},
		PartitionBy: "d", Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-05"}, State: plan.StateIn("s"),
		Audit: &plan.AuditRow{RunID: "r9", Job: "daily"}}
	whole := &plan.Write{Model: "dim", Materialized: plan.Table, Target: plan.Relation{Schema: "s", Name: "dim"}, State: plan.StateIn("s"),
		Audit: &plan.AuditRow{RunID: "r9", Job: "dim"}}
	rc := &plan.Check{Name: "drift.row_count", Kind: plan.CheckDriftRowCount, Severity: "warn", Window: 14, MinRatio: 0.5, MaxRatio: 2}
	zero := &plan.Check{Name: "drift.zero_rows", Kind: plan.CheckDriftZeroRows, Severity: "error"}
	tests := []struct {
		name    string
		d       adapters.Dialect
		c       *plan.Check
		w       *plan.Write
		want    []string
		wantNot []string
	}{
		{"duckdb partition", duckdb.NewDialect(), rc, part, []string{
			"median(l.row_count) AS median, count(*) AS k",
			`WHERE t."d" >= DATE '2026-07-05' AND t."d" < DATE '2026-07-06'`,
			"SELECT DISTINCT p.partition_key FROM \"s\".\"idemc_audit\" AS p\n      WHERE p.job_name = 'daily' AND p.status = 'succeeded' AND p.partition_key < '2026-07-05'\n      ORDER BY p.partition_key DESC\n      LIMIT 14",
			") AS w ON a.partition_key = w.partition_key\n    WHERE a.job_name = 'daily' AND a.status = 'succeeded'",
			"ROW_NUMBER() OVER (PARTITION BY a.partition_key ORDER BY a.ended_at DESC) AS latest",
			"WHERE s.latest = 1\n) AS l) AS h",
			"WHERE h.k >= 3 AND (c.n < 0.5 * h.median OR c.n > 2 * h.median)",
		}, []string{"run_id"}},
		{"postgres", postgres.NewDialect(), rc, part, []string{"percentile_cont(0.5) WITHIN GROUP (ORDER BY l.row_count) AS median"}, []string{"median("}},
		{"mysql middle rows", mysql.NewDialect(), rc, part, []string{
			"avg(o.row_count) AS median, max(o.k) AS k",
			"ROW_NUMBER() OVER (ORDER BY l.row_count) AS i, count(*) OVER () AS k",
			"WHERE 2 * o.i BETWEEN o.k AND o.k + 2",
			"FROM `s`.`idemc_audit` AS a",
		}, []string{"median(", "percentile"}},
		{"unpartitioned: earlier runs", duckdb.NewDialect(), rc, whole, []string{
			"a.partition_key = '' AND a.run_id <> 'r9'\n  ORDER BY a.ended_at DESC\n  LIMIT 14",
			`(SELECT count(*) AS n FROM "s"."dim" AS t) AS c`,
		}, []string{"partition_key <", "latest"}},
		{"zero rows", duckdb.NewDialect(), zero, part, []string{
			`SELECT n AS row_count FROM (SELECT count(*) AS n FROM "s"."daily" AS t` + "\n" + `WHERE t."d" >= DATE '2026-07-05'`,
			") AS c\nWHERE n = 0",
		}, []string{"idemc_audit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := tt.d.CheckQuery(tt.c, tt.w, false)
			for _, s := range tt.want {
				if !strings.Contains(q, s) {
					t.Errorf("query lacks %q:\n%s", s, q)
				}
			}
			for _, s := range tt.wantNot {
				if strings.Contains(q, s) {
					t.Errorf("query has %q:\n%s", s, q)
				}
			}
		})
	}
}
