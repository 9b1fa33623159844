package runner_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/duckdb"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// writeProject writes project.toml and the given models into a new folder.
func writeProject(tb testing.TB, models map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	files := map[string]string{"project.toml": `name = "bench"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
`}
	for name, sql := range models {
		files[filepath.Join("models", name+".sql")] = sql
	}
	for path, text := range files {
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

func build(tb testing.TB, dir string, opts compiler.Options, threads int) *runner.Result {
	tb.Helper()
	p, err := project.Load(dir)
	if err != nil {
		tb.Fatal(err)
	}
	opts.Models = true
	if opts.AsOf.IsZero() {
		opts.AsOf = time.Date(2026, 7, 11, 0, 0, 0, 0, time.UTC)
	}
	res, err := runner.Build(context.Background(), p, runner.Options{Compile: opts, Threads: threads})
	if err != nil {
		tb.Fatal(err)
	}
	if !res.OK() {
		for _, u := range res.Units {
			if u.Error != "" {
				tb.Fatalf("%s: %s", u.ID, u.Error)
			}
		}
		tb.Fatal("build failed")
	}
	return res
}

// BenchmarkUnitOverhead runs 1,000 trivial table models and, for
// comparison, the same CREATE OR REPLACE TABLE statements issued directly in
// one session. The difference per unit is idemc's orchestration overhead
// (planning, audit rows, transaction, output).
func BenchmarkUnitOverhead(b *testing.B) {
	const n = 1000
	models := map[string]string{}
	for i := 0; i < n; i++ {
		models[fmt.Sprintf("m%04d", i)] = "/* idemc\nmaterialized = \"table\"\n*/\nSELECT " + fmt.Sprint(i) + " AS x"
	}
	dir := writeProject(b, models)
	b.Run("idemc", func(b *testing.B) {
		units := 0.0 // seconds, summed over the units
		for i := 0; i < b.N; i++ {
			// --full-refresh: every unit runs (a plain rebuild would find
			// them all up to date and run nothing).
			res := build(b, dir, compiler.Options{FullRefresh: true}, 1)
			if res.Succeeded != n {
				b.Fatalf("%d units ran, want %d", res.Succeeded, n)
			}
			for _, u := range res.Units {
				units += u.Seconds
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/unit")
		// The units alone (one thread: their times add up), without the
		// compile and plan of 1,000 models each build also does: this is
		// the figure to compare with direct's.
		b.ReportMetric(units*1e6/float64(b.N*n), "unit-µs/unit")
	})
	b.Run("idemc-up-to-date", func(b *testing.B) {
		build(b, dir, compiler.Options{}, 1) // whatever ran before, now all is current
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			res := build(b, dir, compiler.Options{}, 1)
			if res.UpToDate != n {
				b.Fatalf("%d up to date, want %d", res.UpToDate, n)
			}
			b.ReportMetric(float64(res.Statements), "writes/build")
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/unit")
	})
	b.Run("direct", func(b *testing.B) {
		db, err := sql.Open("duckdb", filepath.Join(b.TempDir(), "d.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		for i := 0; i < b.N; i++ {
			for j := 0; j < n; j++ {
				if _, err := db.Exec(fmt.Sprintf("CREATE OR REPLACE TABLE main.m%04d AS SELECT %d AS x", j, j)); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*n), "µs/unit")
	})
}

// BenchmarkPartitionReplace replaces one 1M-row partition of a 10M-row
// table: idemc (stage, validate, delete, insert, audit in one transaction)
// against the hand-written BEGIN; DELETE; INSERT; COMMIT on the same data.
func BenchmarkPartitionReplace(b *testing.B) {
	fact := `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT id, d, v, tag FROM main.src WHERE d >= {{ start }} AND d < {{ end }}`
	dir := writeProject(b, map[string]string{"fact": fact})
	if err := os.MkdirAll(filepath.Join(dir, "target"), 0o755); err != nil {
		b.Fatal(err)
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb"))
	if err != nil {
		b.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE main.src AS SELECT i AS id, CAST(DATE '2026-07-01' + CAST(i % 10 AS INTEGER) AS DATE) AS d, i * 0.5 AS v, 'tag' || CAST(i % 97 AS VARCHAR) AS tag FROM range(10000000) AS r(i)",
		"CREATE TABLE main.hand AS SELECT * FROM main.src",
	} {
		if _, err := db.Exec(q); err != nil {
			b.Fatal(err)
		}
	}
	db.Close()
	build(b, dir, compiler.Options{}, 2) // all ten partitions: the 10M-row table
	b.Run("idemc", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			build(b, dir, compiler.Options{Partition: "2026-07-05"}, 1)
		}
	})
	b.Run("hand-written", func(b *testing.B) {
		db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb"))
		if err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close()
		for i := 0; i < b.N; i++ {
			for _, q := range strings.Split(`BEGIN TRANSACTION
DELETE FROM main.hand WHERE d >= DATE '2026-07-05' AND d < DATE '2026-07-06'
INSERT INTO main.hand SELECT id, d, v, tag FROM main.src WHERE d >= DATE '2026-07-05' AND d < DATE '2026-07-06'
COMMIT`, "\n") {
				if _, err := conn.ExecContext(context.Background(), q); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
