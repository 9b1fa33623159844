package runner_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
)

// BenchmarkBackfill builds 365 days of 20 small partitioned models (7,300
// units, one thread, forced) on DuckDB against the same statements issued
// directly on one connection, per unit: the running audit row, BEGIN, the
// window's DELETE and INSERT, the NULL-partition check, the audit update,
// COMMIT. The difference is what idemc adds per unit: planning, the
// schema sync (issue 18, item 5: once per model per run), output.
//
// Each iteration is a pair, idemc then direct, so that both see the machine
// in the same state: ratio is the median of the pairs' ratios (one pair's
// figures moved by a tenth from run to run on the project's machine,
// together).
//
//	go test ./runner/ -run '^$' -bench Backfill -benchtime 3x
//
// (IDEMC_BENCH_DAYS shortens it.)
func BenchmarkBackfill(b *testing.B) {
	const models = 20
	days := 365
	if v, err := strconv.Atoi(os.Getenv("IDEMC_BENCH_DAYS")); err == nil && v > 0 {
		days = v // a shorter backfill, for A/B runs on a loaded machine
	}
	src := map[string]string{}
	for m := 0; m < models; m++ {
		src[fmt.Sprintf("daily%02d", m)] = fmt.Sprintf(`/* idemc
materialized = "incremental"
partition_by = "d"
start = "2025-01-01"
*/
SELECT {{ start }} AS d, %d AS m, 1 AS n`, m)
	}
	dir := writeProject(b, src)
	end := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, days).Format("2006-01-02")
	window := compiler.Options{Start: "2025-01-01", End: end, FullRefresh: true, AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	build(b, dir, window, 1) // the tables exist, as for a re-backfill
	direct := openDirect(b, models)
	units := float64(models * days)
	var idemc, hand, ratios []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		if res := build(b, dir, window, 1); res.Succeeded != models*days {
			b.Fatalf("%d units ran, want %d", res.Succeeded, models*days)
		}
		a := float64(time.Since(t).Microseconds()) / units
		t = time.Now()
		direct(i, days)
		d := float64(time.Since(t).Microseconds()) / units
		idemc, hand, ratios = append(idemc, a), append(hand, d), append(ratios, a/d)
	}
	b.ReportMetric(median(idemc), "idemc-µs/unit")
	b.ReportMetric(median(hand), "direct-µs/unit")
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(0, "ns/op") // a pair's time says nothing the metrics do not
}

// openDirect makes the direct side's database (an audit table and the
// models' tables) and returns its pass: every unit's statements, issued
// one at a time.
func openDirect(b *testing.B, models int) func(run, days int) {
	db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), "d.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	db.SetMaxOpenConns(1)
	ddl := []string{"CREATE TABLE audit (run_id VARCHAR, job_name VARCHAR, partition_key VARCHAR, status VARCHAR, row_count BIGINT, started_at TIMESTAMP, ended_at TIMESTAMP)"}
	for m := 0; m < models; m++ {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE t%02d (d DATE, m INTEGER, n INTEGER)", m))
	}
	for _, q := range ddl {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	return func(i, days int) {
		for m := 0; m < models; m++ {
			for d := 0; d < days; d++ {
				day := time.Date(2025, 1, 1+d, 0, 0, 0, 0, time.UTC)
				p, next := day.Format("2006-01-02"), day.AddDate(0, 0, 1).Format("2006-01-02")
				for _, q := range []string{
					fmt.Sprintf("INSERT INTO audit VALUES ('r%d', 'daily%02d', '%s', 'running', NULL, now(), NULL)", i, m, p),
					"BEGIN TRANSACTION",
					fmt.Sprintf("DELETE FROM t%02d WHERE d >= DATE '%s' AND d < DATE '%s'", m, p, next),
					fmt.Sprintf("INSERT INTO t%02d (d, m, n) SELECT d, m, n FROM (SELECT DATE '%s' AS d, %d AS m, 1 AS n) AS b", m, p, m),
					fmt.Sprintf("SELECT count(*) FROM t%02d WHERE d IS NULL HAVING count(*) > 0", m),
					fmt.Sprintf("UPDATE audit SET status = 'succeeded', row_count = 1, ended_at = now() WHERE run_id = 'r%d' AND job_name = 'daily%02d' AND partition_key = '%s'", i, m, p),
					"COMMIT",
				} {
					if _, err := db.Exec(q); err != nil {
						b.Fatal(err)
					}
				}
			}
		}
	}
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
