package runner_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// BenchmarkHistory is issue 18's "cost flat in history": a no-op build of
// IDEMC_BENCH_MODELS table models (10,000 by default) and a forced build
// of 1 in 20 of them, with a fresh audit table and with one holding
// IDEMC_BENCH_AUDIT_ROWS more rows (1,000,000 by default) of older
// attempts of the same models, every row with its own code hash. The
// history is one INSERT … SELECT from range / generate_series. DuckDB in
// process; PostgreSQL when IDEMC_PG_DSN (or the local default) answers.
//
//	go test ./runner/ -run '^$' -bench History -benchtime 3x -timeout 60m
func BenchmarkHistory(b *testing.B) {
	models := envInt("IDEMC_BENCH_MODELS", 10_000)
	history := envInt("IDEMC_BENCH_AUDIT_ROWS", 1_000_000)
	series := map[string]string{
		"duckdb": `SELECT 'old' || lpad(CAST(i %% 997 AS VARCHAR), 6, '0'), 'm' || lpad(CAST(i %% %[2]d AS VARCHAR), 5, '0'), '',
  CASE WHEN i %% 7 = 0 THEN 'failed' ELSE 'succeeded' END, 1, TIMESTAMP '2020-01-01' + to_seconds(i), TIMESTAMP '2020-01-01' + to_seconds(i + 1),
  0, md5(CAST(i AS VARCHAR)), 'local', md5(CAST(i AS VARCHAR) || 'i') FROM range(%[1]d) AS r(i)`,
		"postgres": `SELECT 'old' || lpad((i %% 997)::text, 6, '0'), 'm' || lpad((i %% %[2]d)::text, 5, '0'), '',
  CASE WHEN i %% 7 = 0 THEN 'failed' ELSE 'succeeded' END, 1, TIMESTAMP '2020-01-01' + make_interval(secs => i), TIMESTAMP '2020-01-01' + make_interval(secs => i + 1),
  0, md5(i::text), 'live', md5(i::text || 'i') FROM generate_series(0, %[1]d - 1) AS g(i)`,
	}
	for _, engine := range []string{"duckdb", "postgres"} {
		for _, rows := range []int{0, history} {
			b.Run(fmt.Sprintf("%s/audit=%d", engine, rows), func(b *testing.B) {
				dir, exec := historyProject(b, engine, models, "idemc_bench_latest_h")
				build(b, dir, compiler.Options{}, 2)
				if rows > 0 {
					exec("INSERT INTO idemc_audit (run_id, job_name, partition_key, status, row_count, started_at, ended_at, attempt, code_hash, target, inputs)\n" +
						fmt.Sprintf(series[engine], rows, models))
				}
				// The state read alone, as a build before idemc_latest
				// made it (the audit table's ranking) and as it is now.
				for _, from := range []string{"audit", "latest"} {
					b.Run("state-read/"+from, func(b *testing.B) {
						benchStateRead(b, engine, dir, from == "latest")
					})
				}
				b.Run("noop", func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						if res := build(b, dir, compiler.Options{}, 1); res.UpToDate != models {
							b.Fatalf("%d up to date, want %d", res.UpToDate, models)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/build")
				})
				b.Run("units", func(b *testing.B) {
					forced := compiler.Options{FullRefresh: true, Select: []string{"tag:w"}}
					for i := 0; i < b.N; i++ {
						if res := build(b, dir, forced, 1); res.Succeeded != models/20 {
							b.Fatalf("%d ran, want %d", res.Succeeded, models/20)
						}
					}
					b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*models/20), "µs/unit")
				})
			})
		}
	}
}

// historyProject writes a project of n table models (every 20th tagged
// w) on the engine and returns it with a statement runner on its target.
func historyProject(b *testing.B, engine string, n int, schema string) (string, func(string)) {
	ms := map[string]string{}
	for i := 0; i < n; i++ {
		tag := ""
		if i%20 == 0 {
			tag = "tags = [\"w\"]\n"
		}
		ms[fmt.Sprintf("m%05d", i)] = fmt.Sprintf("/* idemc\nmaterialized = \"table\"\n%s*/\nSELECT %d AS x", tag, i)
	}
	dir := writeProject(b, ms)
	if engine == "duckdb" {
		return dir, func(q string) {
			db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(context.Background(), "SET search_path = 'main'; "+q); err != nil {
				b.Fatalf("%v\n%s", err, q)
			}
		}
	}
	_, dsn, exec := liveSchema(b, engine, "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable", schema)
	toml := fmt.Sprintf("name = \"bench\"\ndefault_target = \"live\"\n[targets.live]\nengine = %q\ndsn = %q\nschema = %q\n", engine, dsn, schema)
	if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(toml), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		// Before the schema's DROP … CASCADE (registered first, run
		// last): one statement locking 10,000 tables runs out of
		// PostgreSQL's lock table (max_locks_per_transaction).
		for i := 0; i < n; i += 500 {
			var names []string
			for j := i; j < min(i+500, n); j++ {
				names = append(names, fmt.Sprintf("%s.m%05d", schema, j))
			}
			exec("DROP TABLE IF EXISTS " + strings.Join(names, ", "))
		}
	})
	return dir, func(q string) { exec("SET search_path = " + schema); exec(q) }
}

// benchStateRead runs the planner's state query (sqlgen.StatusQuery) on
// the project's target, from idemc_latest or from the audit table.
func benchStateRead(b *testing.B, engine, dir string, latest bool) {
	p, err := project.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	t := p.Targets[p.DefaultTarget]
	settings := map[string]string{"dsn": t.Settings["dsn"]}
	if engine == "duckdb" {
		settings = map[string]string{"path": filepath.Join(dir, "target", "w.duckdb")}
	}
	ad, _ := adapters.Lookup(engine)
	e, err := ad.Open(context.Background(), settings)
	if err != nil {
		b.Fatal(err)
	}
	defer e.Close()
	sess, err := e.Session(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	st := plan.StateIn(t.Schema)
	if !latest {
		st.Latest = plan.Relation{}
	}
	q := sqlgen.StatusQuery(ad.Dialect, st)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, rows, err := sess.Query(context.Background(), q, 0); err != nil || len(rows) == 0 {
			b.Fatalf("%v (%d rows)\n%s", err, len(rows), q)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/read")
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// BenchmarkHistoryUnits is the per-unit write cost as history grows: 100
// day partitions of one model, forced, one thread, with a fresh audit
// table and with IDEMC_BENCH_AUDIT_ROWS more rows of history (1,000,000
// by default), each with its own code hash; ms/unit includes the compile
// of the one-model project.
//
//	go test ./runner/ -run '^$' -bench HistoryUnits -benchtime 3x
func BenchmarkHistoryUnits(b *testing.B) {
	history := envInt("IDEMC_BENCH_AUDIT_ROWS", 1_000_000)
	series := map[string]string{
		"duckdb":   `SELECT 'old' || CAST(i %% 5000 AS VARCHAR), 'job' || CAST(i %% 997 AS VARCHAR), 'p' || CAST(i %% 365 AS VARCHAR), 'succeeded', 1, 1, md5(CAST(i AS VARCHAR)), 'local', 'i' || CAST(i AS VARCHAR) FROM range(%d) AS r(i)`,
		"postgres": `SELECT 'old' || (i %% 5000)::text, 'job' || (i %% 997)::text, 'p' || (i %% 365)::text, 'succeeded', 1, 1, md5(i::text), 'live', 'i' || i::text FROM generate_series(1, %d) AS g(i)`,
	}
	for _, engine := range []string{"duckdb", "postgres"} {
		for _, rows := range []int{0, history} {
			b.Run(fmt.Sprintf("%s/audit=%d", engine, rows), func(b *testing.B) {
				dir, exec := historyProject(b, engine, 0, "idemc_bench_latest_u")
				if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
					b.Fatal(err)
				}
				model := "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-01-01\"\n*/\nSELECT {{ start }} AS d, 1 AS n"
				if err := os.WriteFile(filepath.Join(dir, "models", "daily.sql"), []byte(model), 0o644); err != nil {
					b.Fatal(err)
				}
				window := compiler.Options{Start: "2026-01-01", End: "2026-04-11"} // 100 days, forced
				build(b, dir, window, 1)
				if rows > 0 {
					exec("INSERT INTO idemc_audit (run_id, job_name, partition_key, status, row_count, attempt, code_hash, target, inputs)\n" + fmt.Sprintf(series[engine], rows))
				}
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					build(b, dir, window, 1)
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*100), "µs/unit")
			})
		}
	}
}
