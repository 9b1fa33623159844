package runner_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// BenchmarkUnitOverheadLive runs 100 one-row partitions of one model, one
// thread, forced, on the live PostgreSQL and MariaDB servers, with an audit
// table that already holds IDEMC_BENCH_AUDIT_ROWS rows (200,000 by default)
// of history: ms/unit is idemc's cost per unit as the audit table grows,
// direct-ms/unit the same partitions replaced by the bare statements, and
// overhead-ms/unit the difference (issue 18's goal: 1.5 ms), and
// unit-overhead-ms/unit the same without the build's fixed costs.
// Skipped when a server does not answer.
func BenchmarkUnitOverheadLive(b *testing.B) {
	history := int64(200_000)
	if v, err := strconv.ParseInt(os.Getenv("IDEMC_BENCH_AUDIT_ROWS"), 10, 64); err == nil {
		history = v
	}
	engines := []struct{ name, env, dsn, series string }{
		{"postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", "generate_series(1, %d) AS g(i)"},
		{"mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test", "(SELECT seq AS i FROM seq_1_to_%d) AS g"},
	}
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			schema := "idemc_bench_units"
			d, dsn, exec := liveSchema(b, eng.name, eng.env, eng.dsn, schema)
			dir := writeProject(b, map[string]string{"daily": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-01-01"
*/
SELECT {{ start }} AS d, 1 AS n`})
			toml := fmt.Sprintf("name = \"bench\"\ndefault_target = \"live\"\n[targets.live]\nengine = %q\ndsn = %q\nschema = %q\n", eng.name, dsn, schema)
			if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(toml), 0o644); err != nil {
				b.Fatal(err)
			}
			window := compiler.Options{Start: "2026-01-01", End: "2026-04-11"} // 100 days, forced
			build(b, dir, window, 1)
			audit := d.Qualify(plan.Relation{Schema: schema, Name: "idemc_audit"})
			exec("INSERT INTO " + audit + " (run_id, job_name, partition_key, status, row_count, attempt, code_hash, target, inputs)" +
				fmt.Sprintf(" SELECT concat('old', i %% 5000), concat('job', i %% 997), concat('p', i %% 365), 'succeeded', 1, 1, concat('h', i), 'live', concat('i', i) FROM "+eng.series, history))
			b.ResetTimer()
			units := 0.0 // seconds, summed over the units
			for i := 0; i < b.N; i++ {
				for _, u := range build(b, dir, window, 1).Units {
					units += u.Seconds
				}
			}
			idemc := float64(b.Elapsed().Microseconds()) / float64(b.N) / 100 / 1000
			b.StopTimer()
			// The bare statements of each unit, as a hand-written job
			// sends them: BEGIN, the window's DELETE and INSERT, COMMIT.
			daily := d.Qualify(plan.Relation{Schema: schema, Name: "daily"})
			t0 := time.Now()
			for i := 0; i < b.N; i++ {
				for day := 0; day < 100; day++ {
					lo := time.Date(2026, 1, 1+day, 0, 0, 0, 0, time.UTC)
					win := fmt.Sprintf("d >= DATE '%s' AND d < DATE '%s'", lo.Format(time.DateOnly), lo.AddDate(0, 0, 1).Format(time.DateOnly))
					exec("BEGIN")
					exec("DELETE FROM " + daily + " WHERE " + win)
					exec(fmt.Sprintf("INSERT INTO %s (d, n) SELECT DATE '%s', 1", daily, lo.Format(time.DateOnly)))
					exec("COMMIT")
				}
			}
			direct := float64(time.Since(t0).Microseconds()) / float64(b.N) / 100 / 1000
			b.ReportMetric(idemc, "ms/unit")
			b.ReportMetric(direct, "direct-ms/unit")
			b.ReportMetric(idemc-direct, "overhead-ms/unit")
			// The units alone, without each build's compile, connection and
			// state read (one thread: their times add up).
			b.ReportMetric(units*1000/float64(b.N*100)-direct, "unit-overhead-ms/unit")
		})
	}
}
