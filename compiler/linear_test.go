package compiler_test

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
	"github.com/idemc/idemc/plan"
)

// deepProject is synth.WriteDeep in a temporary folder.
func deepProject(t testing.TB, layers, width int) string {
	t.Helper()
	dir := t.TempDir()
	if err := synth.WriteDeep(dir, layers, width); err != nil {
		t.Fatal(err)
	}
	return dir
}

// fanInProject is synth.WriteFanIn in a temporary folder.
func fanInProject(t testing.TB, leaves, mids int) string {
	t.Helper()
	dir := t.TempDir()
	if err := synth.WriteFanIn(dir, leaves, mids); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestCompileWalksLinearly counts the graph edges compile follows when the
// selection is the top layer of a deep project (each selected model has
// every lower model as an ancestor): a bounded multiple of the edges,
// however many models are selected. A walk per selected model (the
// "missing upstream" expansion before) followed width × edges of them.
func TestCompileWalksLinearly(t *testing.T) {
	const layers, width = 20, 40
	p, err := project.Load(deepProject(t, layers, width))
	if err != nil {
		t.Fatal(err)
	}
	var top []string
	for w := 0; w < width; w++ {
		top = append(top, fmt.Sprintf("m%d_%d", layers-1, w))
	}
	pl, err := compiler.Compile(p, compiler.Options{Models: true, Select: top, State: nothingExists{}, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	edges := int64((layers - 1) * width * 3)
	if v := pl.Graph.Visits(); v > 4*edges {
		t.Errorf("compile followed %d edges of a %d-edge graph (more than 4 times each): some walk is per selected model", v, edges)
	}
	if got := len(pl.Selected); got != layers*width {
		t.Errorf("%d models selected after the expansion, want all %d (nothing exists yet)", got, layers*width)
	}
}

// nothingExists is a warehouse before the first build.
type nothingExists struct{ compiler.NoState }

func (nothingExists) Exists(plan.Relation) bool { return false }

// BenchmarkCompileDeep compiles the top layer of a 10,000-model project
// of 50 layers (each model has ~2,400 ancestors) before its first build, the
// shape on which the per-model ancestor walk was quadratic.
func BenchmarkCompileDeep(b *testing.B) {
	p, err := project.Load(deepProject(b, 50, 200))
	if err != nil {
		b.Fatal(err)
	}
	var top []string
	for w := 0; w < 200; w++ {
		top = append(top, fmt.Sprintf("m49_%d", w))
	}
	opts := compiler.Options{Models: true, Select: top, State: nothingExists{}, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)}
	for i := 0; i < b.N; i++ {
		pl, err := compiler.Compile(p, opts)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(pl.Graph.Visits()), "edge-visits")
	}
}

// TestFanInWalksLinearly: selecting the top of a wide fan-in before the
// first build follows each edge a bounded number of times.
func TestFanInWalksLinearly(t *testing.T) {
	const leaves, mids = 2000, 20
	p, err := project.Load(fanInProject(t, leaves, mids))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := compiler.Compile(p, compiler.Options{Models: true, Select: []string{"top"}, State: nothingExists{}, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	edges := int64(leaves + mids)
	if v := pl.Graph.Visits(); v > 4*edges {
		t.Errorf("compile followed %d edges of a %d-edge graph (more than 4 times each)", v, edges)
	}
	if got := len(pl.Units); got != leaves+mids+1 {
		t.Errorf("%d units, want all %d models (nothing exists yet)", got, leaves+mids+1)
	}
}

// TestPartitionPlanningFlatInHistory: planning one --partition of an
// hourly model costs the same whether the model starts a month or a
// century before it (allocations counted, not time). Checking the
// partition against the model's range listed every partition since its
// start: ~880,000 windows per model per compile for a century of hours.
func TestPartitionPlanningFlatInHistory(t *testing.T) {
	allocs := func(start string) float64 {
		dir := t.TempDir()
		files := map[string]string{
			"project.toml": "name = \"h\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"w.duckdb\"\n",
			"models/h.sql": "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"ts\"\ngranularity = \"hour\"\nstart = \"" + start + "\"\n*/\nSELECT TIMESTAMP '2026-07-01 00:00:00' AS ts\n",
		}
		for name, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		opts := compiler.Options{Models: true, Partition: "2026-07-01T05", AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)}
		return testing.AllocsPerRun(3, func() {
			if _, err := compiler.Compile(p, opts); err != nil {
				t.Fatal(err)
			}
		})
	}
	recent, old := allocs("2026-06-01"), allocs("1926-07-01")
	if old > recent*1.1+20 {
		t.Errorf("a --partition compile made %.0f allocations for a model started a century ago, %.0f for one started a month ago: planning walks the history", old, recent)
	}
}

// TestPlanningAllocsLinear measures allocations (bytes and count, not
// time) of a compile of each shape at two sizes: per model they must stay
// flat (within 15 %) when the project grows fourfold (a list of every
// model's ancestors, made per model, adds ~27 % on the deep shape).
// Graph.Visits counts the edges walks follow; this sees any other step
// whose work per model grows with the project (a list rebuilt per unit).
func TestPlanningAllocsLinear(t *testing.T) {
	asOf := time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)
	cases := []struct {
		name  string
		write func(dir string, k int) error // k = 1, 4: the project's scale
		top   func(k int) []string
	}{
		{"deep", func(dir string, k int) error { return synth.WriteDeep(dir, 5*k, 40) },
			func(k int) []string {
				var top []string
				for w := 0; w < 40; w++ {
					top = append(top, fmt.Sprintf("m%d_%d", 5*k-1, w))
				}
				return top
			}},
		{"fanin", func(dir string, k int) error { return synth.WriteFanIn(dir, 500*k, 5*k) },
			func(int) []string { return []string{"top"} }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var bytes, count [5]float64 // per model, by scale
			for _, k := range []int{1, 4} {
				dir := t.TempDir()
				if err := tc.write(dir, k); err != nil {
					t.Fatal(err)
				}
				p, err := project.Load(dir)
				if err != nil {
					t.Fatal(err)
				}
				opts := compiler.Options{Models: true, Select: tc.top(k), State: nothingExists{}, AsOf: asOf}
				b, c := allocated(t, func() {
					pl, err := compiler.Compile(p, opts)
					if err != nil || len(pl.Units) != len(p.Models) {
						t.Fatalf("%v; %d units of %d models", err, len(pl.Units), len(p.Models))
					}
				})
				bytes[k], count[k] = b/float64(len(p.Models)), c/float64(len(p.Models))
			}
			t.Logf("per model: %.0f B in %.0f allocations, then %.0f B in %.0f at 4 times the size", bytes[1], count[1], bytes[4], count[4])
			if bytes[4] > bytes[1]*1.15 || count[4] > count[1]*1.15 {
				t.Errorf("per model %.0f B in %.0f allocations at 4 times the size against %.0f B in %.0f: some step of compile grows with the project per model", bytes[4], count[4], bytes[1], count[1])
			}
		})
	}
}

// allocated is what fn allocates (bytes, count), the smaller of two runs
// (the first may fill caches the second reuses).
func allocated(t *testing.T, fn func()) (bytes, count float64) {
	t.Helper()
	bytes, count = math.Inf(1), math.Inf(1)
	for range 2 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		bytes = min(bytes, float64(after.TotalAlloc-before.TotalAlloc))
		count = min(count, float64(after.Mallocs-before.Mallocs))
	}
	return bytes, count
}
