package main

import (
	"bytes"
	"context"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/conformance"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
)

// TestDemoSameOnEveryEngine builds the demo on DuckDB, PostgreSQL and
// MariaDB and requires the same surrogate keys and the same contents in
// every demo table. The live servers are skipped when absent (required in CI).
func TestDemoSameOnEveryEngine(t *testing.T) {
	pg := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	my := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	dir := t.TempDir()
	for _, name := range []string{"project.toml", "models", "macros", "seeds", "tests"} {
		testtree.Copy(t, filepath.Join("..", "..", name), filepath.Join(dir, name))
	}
	t.Setenv("IDEMC_PG_DSN", pg)
	t.Setenv("IDEMC_MYSQL_DSN", my)
	settings := map[string]map[string]string{
		"local": {"engine": "duckdb", "path": filepath.Join(dir, "target", "warehouse.duckdb")},
		"pg":    {"engine": "postgres", "dsn": pg},
		"mysql": {"engine": "mysql", "dsn": my},
	}
	targets := []string{"local", "pg", "mysql"}
	// Spark when its server is set up (the demo's spark target is the
	// local one; IDEMC_SPARK_URL names it).
	if sc, ok := conformance.LiveIfSet(t, "spark", "IDEMC_SPARK_URL"); ok {
		settings["spark"] = map[string]string{"engine": "spark", "dsn": sc}
		targets = append(targets, "spark")
		if sc != "sc://127.0.0.1:15002" {
			t.Fatalf("the demo's spark target is sc://127.0.0.1:15002, IDEMC_SPARK_URL is %s", sc)
		}
	}
	var want map[string]string
	for _, target := range targets {
		s := settings[target]
		ad, _ := adapters.Lookup(s["engine"])
		schema := "main"
		if target != "local" {
			schema = "analytics"
			dropDemo(t, ad, s)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"build", "--project", dir, "--target", target, "--as-of", "2026-08-01T00:00:00Z"}, &out, &errb); code != 0 {
			t.Fatalf("build --target %s: exit %d\n%s%s", target, code, out.String(), errb.String())
		}
		got := map[string]string{}
		for _, table := range []string{"events_daily", "dim_users", "user_summary"} {
			got[table] = engineFingerprint(t, ad, s, plan.Relation{Schema: schema, Name: table})
		}
		t.Logf("%s: events_daily %d rows, first: %.80s", target, strings.Count(got["events_daily"], "\n")+1, got["events_daily"])
		if want == nil {
			want = got
			continue
		}
		for table, fp := range want {
			if got[table] != fp {
				t.Errorf("%s on %s differs from DuckDB:\n%s", table, target, firstDifference(fp, got[table]))
			}
		}
	}
}

func dropDemo(t *testing.T, ad *adapters.Adapter, s map[string]string) {
	t.Helper()
	eng, err := ad.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := eng.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	for _, schema := range []string{"analytics", "raw"} {
		q := "DROP SCHEMA IF EXISTS " + ad.Dialect.Quote(schema)
		if s["engine"] == "postgres" || s["engine"] == "spark" {
			q += " CASCADE"
		}
		if _, err := adapters.ExecSQL(context.Background(), sess, q); err != nil {
			t.Fatal(err)
		}
	}
}

// engineFingerprint lists a table's rows as text, sorted.
func engineFingerprint(t *testing.T, ad *adapters.Adapter, s map[string]string, r plan.Relation) string {
	t.Helper()
	eng, err := ad.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := eng.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	_, rows, err := sess.Query(context.Background(), "SELECT * FROM "+ad.Dialect.Qualify(r), 0)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(rows))
	for i, row := range rows {
		lines[i] = strings.Join(row, "\t")
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		t.Fatalf("%s is empty", r.Name)
	}
	return strings.Join(lines, "\n")
}

func firstDifference(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) && i < len(bl); i++ {
		if al[i] != bl[i] {
			return "  duckdb: " + al[i] + "\n  other:  " + bl[i]
		}
	}
	return "row counts differ"
}
