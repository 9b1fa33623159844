package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// BenchmarkPartitionReplaceLive replaces one tenth of a table (1M of 10M
// rows by default; IDEMC_BENCH_ROWS changes the total) on the live
// PostgreSQL and MariaDB servers, against the same hand-written
// BEGIN; DELETE; INSERT; COMMIT. Skipped when a server does not answer.
func BenchmarkPartitionReplaceLive(b *testing.B) {
	rows := int64(10_000_000)
	if v, err := strconv.ParseInt(os.Getenv("IDEMC_BENCH_ROWS"), 10, 64); err == nil {
		rows = v
	}
	engines := []struct {
		name, env, dsn, series string
	}{
		{"postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable",
			"SELECT i AS id, CAST(DATE '2026-07-01' + CAST(i %% 10 AS INTEGER) AS DATE) AS d, i * 0.5 AS v, 'tag' || CAST(i %% 97 AS TEXT) AS tag FROM generate_series(0, %d) AS g(i)"},
		{"mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test",
			// MariaDB's sequence engine
			"SELECT seq AS id, DATE '2026-07-01' + INTERVAL (seq %% 10) DAY AS d, seq * 0.5 AS v, concat('tag', seq %% 97) AS tag FROM seq_0_to_%d"},
	}
	for _, eng := range engines {
		b.Run(eng.name, func(b *testing.B) {
			schema := "idemc_bench"
			d, dsn, exec := liveSchema(b, eng.name, eng.env, eng.dsn, schema)
			exec("CREATE SCHEMA " + d.Quote(schema))
			src := d.Qualify(plan.Relation{Schema: schema, Name: "src"})
			hand := d.Qualify(plan.Relation{Schema: schema, Name: "hand"})
			exec("CREATE TABLE " + src + " AS " + fmt.Sprintf(eng.series, rows-1))
			exec("CREATE TABLE " + hand + " AS SELECT * FROM " + src)
			// The same physical design idemc gives its table: an index on
			// the partition column.
			exec("CREATE INDEX hand_d ON " + hand + " (d)")
			dir := writeProject(b, map[string]string{"fact": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT id, d, v, tag FROM ` + src + ` WHERE d >= {{ start }} AND d < {{ end }}`})
			toml := fmt.Sprintf("name = \"bench\"\ndefault_target = \"live\"\n[targets.live]\nengine = %q\ndsn = %q\nschema = %q\n", eng.name, dsn, schema)
			if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(toml), 0o644); err != nil {
				b.Fatal(err)
			}
			build(b, dir, compiler.Options{}, 2) // the 10-partition table
			b.Run("idemc", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					build(b, dir, compiler.Options{Partition: "2026-07-05"}, 1)
				}
			})
			b.Run("hand-written", func(b *testing.B) {
				begin := "BEGIN"
				if eng.name == "mysql" {
					begin = "START TRANSACTION"
				}
				for i := 0; i < b.N; i++ {
					for _, q := range []string{begin,
						"DELETE FROM " + hand + " WHERE d >= DATE '2026-07-05' AND d < DATE '2026-07-06'",
						"INSERT INTO " + hand + " SELECT id, d, v, tag FROM " + src + " WHERE d >= DATE '2026-07-05' AND d < DATE '2026-07-06'",
						"COMMIT"} {
						exec(q)
					}
				}
			})
		})
	}
}

// liveSchema connects a live benchmark to its server (skipping it when the
// server does not answer) and gives it an empty schema, dropped when it
// ends; exec runs a statement or fails the benchmark.
func liveSchema(b testing.TB, engine, env, dsn, schema string) (adapters.Dialect, string, func(string)) {
	if v := os.Getenv(env); v != "" {
		dsn = v
	}
	ad, _ := adapters.Lookup(engine)
	e, err := ad.Open(context.Background(), map[string]string{"dsn": dsn})
	if err != nil {
		b.Skipf("%s does not answer: %v", engine, err)
	}
	sess, err := e.Session(context.Background())
	if err != nil {
		e.Close()
		b.Fatal(err)
	}
	d := ad.Dialect
	exec := func(q string) {
		if _, err := adapters.ExecSQL(context.Background(), sess, q); err != nil {
			b.Fatalf("%v\n%s", err, q)
		}
	}
	drop := "DROP SCHEMA IF EXISTS " + d.Quote(schema)
	if engine == "postgres" {
		drop += " CASCADE"
	}
	exec(drop)
	b.Cleanup(func() {
		exec(drop)
		sess.Close()
		e.Close()
	})
	return d, dsn, exec
}
