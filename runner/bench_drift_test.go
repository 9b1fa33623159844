package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
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

// BenchmarkDriftQueries times the two statements [drift] adds to a unit,
// zero_rows and row_count, on an audit table of 20 models × 365
// partitions × 3 attempts (21,900 rows), for a 1,000-row partition: the
// per-unit cost without the rest of the run's noise.
//
//	go test ./runner/ -run '^$' -bench DriftQueries -benchtime 200x
func BenchmarkDriftQueries(b *testing.B) {
	for _, engine := range []string{"duckdb", "postgres"} {
		b.Run(engine, func(b *testing.B) {
			schema := "idemc_bench_driftq"
			var d adapters.Dialect
			var exec func(string)
			var sess adapters.Session
			if engine == "postgres" {
				d, _, exec = liveSchema(b, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", schema)
				sess = openSession(b, "postgres", map[string]string{"dsn": envOr("IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")})
			} else {
				sess = openSession(b, "duckdb", map[string]string{"path": filepath.Join(b.TempDir(), "w.duckdb")})
				ad, _ := adapters.Lookup("duckdb")
				d = ad.Dialect
				exec = func(q string) {
					if _, err := adapters.ExecSQL(context.Background(), sess, q); err != nil {
						b.Fatalf("%v\n%s", err, q)
					}
				}
			}
			exec("CREATE SCHEMA " + d.Quote(schema))
			audit, dest := plan.Relation{Schema: schema, Name: "idemc_audit"}, plan.Relation{Schema: schema, Name: "fact"}
			exec("CREATE TABLE " + d.Qualify(audit) + " (run_id VARCHAR(100), job_name VARCHAR(100), partition_key VARCHAR(100), status VARCHAR(20), row_count BIGINT, ended_at TIMESTAMP)")
			exec("CREATE INDEX bench_audit_key ON " + d.Qualify(audit) + " (job_name, partition_key, run_id)")
			exec("CREATE TABLE " + d.Qualify(dest) + " (d DATE, n INTEGER)")
			exec("CREATE INDEX bench_fact_d ON " + d.Qualify(dest) + " (d)")
			day0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
			for a := 1; a <= 3; a++ {
				for m := 0; m < 20; m++ {
					var rows []string
					for p := 0; p < 365; p++ {
						key := day0.AddDate(0, 0, p).Format("2006-01-02")
						rows = append(rows, fmt.Sprintf("('r%d', 'm%02d', '%s', 'succeeded', %d, %s)", a, m, key, 1000+p%7, d.Timestamp(day0.Add(time.Duration(a*1000+p)*time.Minute))))
					}
					exec("INSERT INTO " + d.Qualify(audit) + " VALUES " + strings.Join(rows, ", "))
				}
			}
			day := day0.AddDate(0, 0, 300)
			vals := strings.TrimSuffix(strings.Repeat(fmt.Sprintf("(DATE '%s', 1), ", day.Format("2006-01-02")), 1000), ", ")
			exec("INSERT INTO " + d.Qualify(dest) + " VALUES " + vals)
			w := &plan.Write{Model: "m07", Materialized: plan.Incremental, Strategy: "delete_insert", Target: dest, PartitionBy: "d",
				Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: day.Format("2006-01-02")}, State: plan.State{Audit: audit}}
			qs := []string{
				d.CheckQuery(&plan.Check{Kind: plan.CheckDriftZeroRows}, w, false),
				d.CheckQuery(&plan.Check{Kind: plan.CheckDriftRowCount, Window: 14, MinRatio: 0.5, MaxRatio: 2}, w, false),
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for _, q := range qs {
					if _, _, err := sess.Query(context.Background(), q, 5); err != nil {
						b.Fatalf("%v\n%s", err, q)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/unit")
		})
	}
}

func openSession(b *testing.B, engine string, settings map[string]string) adapters.Session {
	ad, _ := adapters.Lookup(engine)
	e, err := ad.Open(context.Background(), settings)
	if err != nil {
		b.Skipf("%s does not answer: %v", engine, err)
	}
	s, err := e.Session(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close(); e.Close() })
	return s
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}
