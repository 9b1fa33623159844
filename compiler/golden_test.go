package compiler_test

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/bigquery"
	_ "github.com/idemc/idemc/adapters/duckdb"
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	_ "github.com/idemc/idemc/adapters/snowflake"
	_ "github.com/idemc/idemc/adapters/spark"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestGoldenDemo compiles every demo model for each engine's target and
// compares each unit's SQL with testdata/golden/<target>/<model>.sql.
// go test ./compiler -update rewrites them.
func TestGoldenDemo(t *testing.T) {
	p, err := project.Load("..")
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	for _, target := range goldenTargets(p) {
		t.Run(target, func(t *testing.T) {
			opts := compiler.Options{Target: target, AsOf: asOf, Models: true, Seeds: true, Partition: "2026-07-02", RunID: "r1", GitCommit: "g1"}
			plan, err := compiler.Compile(p, opts)
			if err != nil {
				t.Fatal(err)
			}
			again, err := compiler.Compile(p, opts)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Format(true) != again.Format(true) {
				t.Fatal("two compiles of the same project differ")
			}
			byModel := map[string]*strings.Builder{}
			var order []string
			for _, u := range plan.Units {
				b := byModel[u.Model]
				if b == nil {
					b = &strings.Builder{}
					byModel[u.Model] = b
					order = append(order, u.Model)
				}
				compiler.FormatUnit(b, u, true)
			}
			for _, m := range order {
				golden(t, filepath.Join("testdata", "golden", target, m+".sql"), strings.TrimLeft(byModel[m].String(), "\n"))
			}
		})
	}
}

// goldenTargets are the demo's targets whose engines have a dialect here.
func goldenTargets(p *project.Project) []string {
	var out []string
	for _, name := range []string{"local", "pg", "mysql", "snowflake", "bigquery", "databricks"} {
		if _, ok := p.Targets[name]; ok {
			out = append(out, name)
		}
	}
	return out
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./compiler -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the compiled SQL (run go test ./compiler -update and review the diff):\n%s", path, firstDiff(string(want), got))
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + x + "\n  got:  " + y
		}
	}
	return ""
}
