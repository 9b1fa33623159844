package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/internal/testtree"
)

// onceProject is three models and a singular test on DuckDB; inc, when
// set, makes daily read is_incremental().
func onceProject(t *testing.T, inc bool) string {
	daily := "SELECT d, id FROM {{ ref(\"src\") }} WHERE d >= {{ start }} AND d < {{ end }}"
	if inc {
		daily = "SELECT d, id FROM {{ ref(\"src\") }} WHERE d >= {{ start }} AND d < {{ end }}{% if is_incremental() %} AND id > 0{% endif %}"
	}
	return testtree.Write(t, map[string]string{
		"project.toml": "name = \"once\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/src.sql": "/* idemc\nmaterialized = \"table\"\n*/\n" +
			"SELECT * FROM (VALUES (DATE '2026-07-01', 1), (DATE '2026-07-02', 2)) AS t(d, id)",
		"models/names.sql": "/* idemc\nmaterialized = \"view\"\n*/\nSELECT id FROM {{ ref(\"src\") }}",
		"models/daily.sql": "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n*/\n" + daily,
		"tests/ids.sql":    "SELECT id FROM {{ ref(\"names\") }} WHERE id IS NULL",
	})
}

// buildCounting builds dir and returns the compile work it did.
func buildCounting(t *testing.T, dir string) (*Result, *compiler.Work, error) {
	t.Helper()
	w := &compiler.Work{}
	opts := compiler.Options{Models: true, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC), Work: w}
	res, err := Build(context.Background(), loadProject(t, dir), Options{Compile: opts, Threads: 1, Tests: true})
	return res, w, err
}

// TestBuildCompilesOnce: build checks its input without a connection and
// plans again with the audit state, but renders and analyses each model
// (and test) once — unless the state changes what a model renders
// (is_incremental() on a fresh warehouse), when it compiles afresh rather
// than plan from a stale render. A model calling is_incremental() renders
// twice per compile: its code hash covers both answers.
func TestBuildCompilesOnce(t *testing.T) {
	cases := []struct {
		name                    string
		inc                     bool
		firstAnalyses, firstRen int64 // a fresh warehouse
		nextRen                 int64 // the second build's renders (3 analyses)
	}{
		{"no is_incremental", false, 3, 4, 4},
		{"is_incremental flips on a fresh warehouse", true, 6, 10, 5},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := onceProject(t, c.inc)
			for i, want := range [][2]int64{{c.firstAnalyses, c.firstRen}, {3, c.nextRen}} {
				res, w, err := buildCounting(t, dir)
				if err != nil {
					t.Fatal(err)
				}
				if !res.OK() {
					t.Fatalf("build %d failed: %+v", i+1, res.Units)
				}
				if got := [2]int64{w.Analyses.Load(), w.Renders.Load()}; got != want {
					t.Errorf("build %d: %d analyses and %d renders, want %v", i+1, got[0], got[1], want)
				}
				if i == 0 {
					firstDaily(t, dir)
				}
			}
		})
	}
}

// TestBuildBadInputWritesNothing: a model naming an unknown model fails
// the build before it connects: no database file, one render per model.
func TestBuildBadInputWritesNothing(t *testing.T) {
	dir := onceProject(t, false)
	if err := os.WriteFile(filepath.Join(dir, "models", "names.sql"), []byte("SELECT id FROM {{ ref(\"nope\") }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, w, err := buildCounting(t, dir)
	var list diag.List
	if !errors.As(err, &list) || !strings.Contains(err.Error(), "nope") {
		t.Fatalf("error %v, want a diag.List naming the unknown ref", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "target", "w.duckdb")); !os.IsNotExist(err) {
		t.Errorf("bad input opened the warehouse (target/w.duckdb: %v)", err)
	}
	if n := w.Renders.Load(); n != 3 {
		t.Errorf("%d renders, want 3 (each model once, no second compile)", n)
	}
}

// firstDaily fails when the first build's daily unit ran the incremental
// filter: the table did not exist, so is_incremental() was false.
func firstDaily(t *testing.T, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "target", "compiled", "daily", "2026-07-01.sql"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "id > 0") {
		t.Errorf("daily's first unit rendered is_incremental() true on a fresh warehouse:\n%s", b)
	}
}
