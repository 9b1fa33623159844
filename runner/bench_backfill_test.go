package runner_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
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
//	go test ./runner/ -run '^$' -bench Backfill -benchtime 1x -count 3
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
	b.Run("idemc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if res := build(b, dir, window, 1); res.Succeeded != models*days {
				b.Fatalf("%d units ran, want %d", res.Succeeded, models*days)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*models*days), "µs/unit")
	})
	b.Run("direct", func(b *testing.B) {
		db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), "d.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
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
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
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
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*models*days), "µs/unit")
	})
}
