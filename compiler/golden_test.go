package compiler_test

import (
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/bigquery/dialect"
	_ "github.com/idemc/idemc/adapters/duckdb/dialect"
	_ "github.com/idemc/idemc/adapters/mysql/dialect"
	_ "github.com/idemc/idemc/adapters/postgres/dialect"
	_ "github.com/idemc/idemc/adapters/snowflake/dialect"
	_ "github.com/idemc/idemc/adapters/spark/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

var update = flag.Bool("update", false, "rewrite golden files")

// goldenRoot holds one directory per case: its inputs (a project, or a
// case.toml naming one elsewhere) and out/<target>/ with what each target
// compiles to. A new case is a new directory; no code changes.
const goldenRoot = "testdata/golden"

// caseFile is the optional compile options of a case, beside its project.
const caseFile = "case.toml"

// errorFile is the golden of a target that refuses to compile the case.
const errorFile = "error.txt"

// goldenCase is a case.toml: how to compile the case's project.
type goldenCase struct {
	Project     string            `toml:"project"`      // the inputs, relative to the case (default: the case itself)
	AsOf        string            `toml:"as_of"`        // RFC 3339 (default 2026-07-03T06:00:00Z)
	Partition   string            `toml:"partition"`    // exactly this partition
	Start       string            `toml:"start"`        // or partitions in [start, end)
	End         string            `toml:"end"`          //
	FullRefresh bool              `toml:"full_refresh"` // --full-refresh
	Select      []string          `toml:"select"`       // --select
	HighWater   map[string]string `toml:"high_water"`   // stored watermarks by model
	FirstRun    bool              `toml:"first_run"`    // no destination exists yet
}

// TestGolden compiles every case of testdata/golden for each of its
// project's targets and compares each model's units with
// out/<target>/<model>.sql (or the compile error with out/<target>/error.txt;
// a project refused at load has one out/error.txt).
// go test ./compiler -update rewrites them.
func TestGolden(t *testing.T) {
	entries, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		n++
		dir := filepath.Join(goldenRoot, e.Name())
		t.Run(e.Name(), func(t *testing.T) { runGoldenCase(t, dir) })
	}
	if n == 0 {
		t.Fatalf("no cases under %s", goldenRoot)
	}
}

func runGoldenCase(t *testing.T, dir string) {
	gc := readCase(t, dir)
	p, err := project.Load(filepath.Join(dir, gc.Project))
	if err != nil {
		// Refused at load, before any target is chosen: one golden for all.
		golden(t, filepath.Join(dir, "out", errorFile), err.Error()+"\n")
		staleFiles(t, filepath.Join(dir, "out"), dirSet([]string{errorFile}))
		return
	}
	targets := goldenTargets(t, p)
	for _, target := range targets {
		t.Run(target, func(t *testing.T) {
			out := filepath.Join(dir, "out", target)
			files := compileTarget(t, p, gc.options(t, target))
			staleFiles(t, out, files)
			for name, got := range files {
				golden(t, filepath.Join(out, name), got)
			}
		})
	}
	staleFiles(t, filepath.Join(dir, "out"), dirSet(targets))
}

func readCase(t *testing.T, dir string) goldenCase {
	t.Helper()
	gc := goldenCase{Project: ".", AsOf: "2026-07-03T06:00:00Z"}
	path := filepath.Join(dir, caseFile)
	if _, err := os.Stat(path); err != nil {
		return gc
	}
	md, err := toml.DecodeFile(path, &gc)
	if err != nil {
		t.Fatal(err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		t.Fatalf("%s: unknown keys %v", path, u)
	}
	return gc
}

func (gc goldenCase) options(t *testing.T, target string) compiler.Options {
	t.Helper()
	asOf, err := time.Parse(time.RFC3339, gc.AsOf)
	if err != nil {
		t.Fatalf("case.toml as_of: %v", err)
	}
	return compiler.Options{Target: target, AsOf: asOf, Models: true, Seeds: true,
		Partition: gc.Partition, Start: gc.Start, End: gc.End, FullRefresh: gc.FullRefresh, Select: gc.Select,
		State: goldenState{highWater: gc.HighWater, firstRun: gc.FirstRun}, RunID: "r1", GitCommit: "g1"}
}

// goldenTargets are the project's targets, sorted; every registered engine
// must have one, so that a new engine cannot go without goldens.
func goldenTargets(t *testing.T, p *project.Project) []string {
	t.Helper()
	var out []string
	engines := map[string]bool{}
	for name, tgt := range p.Targets {
		out = append(out, name)
		engines[tgt.Engine] = true
	}
	for _, e := range adapters.Names() {
		if !engines[e] {
			t.Errorf("no target with engine %q: add [targets.%s] to the case's project.toml", e, e)
		}
	}
	sort.Strings(out)
	return out
}

// compileTarget returns the golden files of one target: <model>.sql per
// model with units, or error.txt when the target refuses the project.
func compileTarget(t *testing.T, p *project.Project, opts compiler.Options) map[string]string {
	t.Helper()
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return map[string]string{errorFile: err.Error() + "\n"}
	}
	again, err := compiler.Compile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if pl.Format(true) != again.Format(true) {
		t.Fatal("two compiles of the same project differ")
	}
	seeds := map[string]*project.Seed{}
	for _, s := range p.Seeds {
		seeds[s.Name] = s
	}
	byModel := map[string]*strings.Builder{}
	for _, u := range pl.Units {
		b := byModel[u.Model]
		if b == nil {
			b = &strings.Builder{}
			byModel[u.Model] = b
		}
		plan.FormatUnit(b, u, true)
		if s := seeds[u.Model]; u.Seed && s != nil && s.Table != nil {
			// The plan says only "load in bulk"; the table it creates is the
			// engine's: its column types are part of the golden.
			ad, _ := adapters.Lookup(pl.Engine)
			b.WriteString("-- columns: " + sqlgen.SeedColumnDefs(ad.Dialect, s.Table) + "\n")
		}
	}
	files := map[string]string{}
	for m, b := range byModel {
		files[m+".sql"] = strings.TrimLeft(b.String(), "\n")
	}
	if len(files) == 0 {
		t.Fatal("the case compiles to no unit: nothing to compare")
	}
	return files
}

// goldenState is a warehouse where every destination exists (unless
// firstRun) and watermark models have the case's stored marks.
type goldenState struct {
	compiler.NoState
	highWater map[string]string
	firstRun  bool
}

func (s goldenState) Exists(plan.Relation) bool { return !s.firstRun }

func (s goldenState) HighWater(model string) (string, bool) {
	v, ok := s.highWater[model]
	return v, ok
}

func dirSet(names []string) map[string]string {
	out := map[string]string{}
	for _, n := range names {
		out[n] = ""
	}
	return out
}

// staleFiles fails for a golden file or directory of dir that nothing
// produces any more; -update removes it. Each target removes only its own
// files, so that -update with -run rewrites only what ran.
func staleFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		if *update && os.IsNotExist(err) {
			return
		}
		t.Fatalf("%v (run go test ./compiler -update to create it)", err)
	}
	for _, e := range entries {
		if _, ok := want[e.Name()]; ok {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if !*update {
			t.Errorf("%s: stale golden (nothing compiles to it; run go test ./compiler -update)", path)
		} else if err := os.RemoveAll(path); err != nil {
			t.Fatal(err)
		}
	}
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
