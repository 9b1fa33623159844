package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
)

// BenchmarkDrift is the cost of [drift] per unit: a forced re-backfill of
// 365 daily partitions of one model (one thread), without rules and with
// zero_rows and row_count (whose history query reads the audit table
// inside each unit's transaction), on DuckDB and, when it answers, the
// live PostgreSQL. Each case has its own file or schema, so both audit
// tables grow alike.
//
//	go test ./runner/ -run '^$' -bench Drift -benchtime 1x -count 3
//
// (IDEMC_BENCH_DAYS shortens it.)
func BenchmarkDrift(b *testing.B) {
	days := 365
	if v, err := strconv.Atoi(os.Getenv("IDEMC_BENCH_DAYS")); err == nil && v > 0 {
		days = v
	}
	end := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).AddDate(0, 0, days).Format("2006-01-02")
	window := compiler.Options{Start: "2025-01-01", End: end, FullRefresh: true, AsOf: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	rules := map[string]string{"without": "", "with": "[drift]\nzero_rows = \"error\"\nrow_count = { window = 14 }\n"}
	for _, engine := range []string{"duckdb", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			for _, name := range []string{"without", "with"} {
				b.Run(name, func(b *testing.B) {
					dir := writeProject(b, map[string]string{"daily": "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2025-01-01\"\n" + rules[name] +
						"*/\nSELECT {{ start }} AS d, 1 AS n"})
					if engine == "postgres" {
						schema := "idemc_bench_drift_" + name
						_, dsn, _ := liveSchema(b, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", schema)
						toml := fmt.Sprintf("name = \"bench\"\ndefault_target = \"live\"\n[targets.live]\nengine = \"postgres\"\ndsn = %q\nschema = %q\n", dsn, schema)
						if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(toml), 0o644); err != nil {
							b.Fatal(err)
						}
					}
					build(b, dir, window, 1) // the table and a year of history exist
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						if res := build(b, dir, window, 1); res.Succeeded != days {
							b.Fatalf("%d units succeeded, want %d", res.Succeeded, days)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*days), "ms/unit")
				})
			}
		})
	}
}
