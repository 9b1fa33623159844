package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// deepProject writes layers × width views, each reading three views of the
// layer below: every model of the top layer depends on nearly every other.
func deepProject(t testing.TB, layers, width int) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("project.toml", "name = \"deep\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"w.duckdb\"\n")
	for l := 0; l < layers; l++ {
		for w := 0; w < width; w++ {
			sql := "SELECT 1 AS x"
			if l > 0 {
				sql = fmt.Sprintf("SELECT a.x FROM {{ ref(\"m%d_%d\") }} AS a JOIN {{ ref(\"m%d_%d\") }} AS b ON a.x = b.x JOIN {{ ref(\"m%d_%d\") }} AS c ON a.x = c.x",
					l-1, w, l-1, (w+1)%width, l-1, (w+2)%width)
			}
			write(fmt.Sprintf("models/m%d_%d.sql", l, w), "/* idemc\nmaterialized = \"view\"\n*/\n"+sql+"\n")
		}
	}
	return dir
}

// fanInProject writes a wide fan-in of views: leaves views selecting a
// constant, mids tables each reading leaves/mids of them (UNION ALL), and
// one top table reading every mid — the shape of a mart fed by thousands of
// staging models, where a cost per ref of a model (its refs deduplicated,
// its inputs fingerprinted, its CTEs joined) would grow with the fan-in.
func fanInProject(t testing.TB, leaves, mids int) string {
	t.Helper()
	dir := t.TempDir()
	write := func(name, text string) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("project.toml", "name = \"fanin\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"w.duckdb\"\n")
	for l := 0; l < leaves; l++ {
		write(fmt.Sprintf("models/leaf/l%d.sql", l), fmt.Sprintf("/* idemc\nmaterialized = \"view\"\n*/\nSELECT %d AS x\n", l))
	}
	union := func(names []string) string {
		var b strings.Builder
		for i, n := range names {
			if i > 0 {
				b.WriteString("\nUNION ALL\n")
			}
			fmt.Fprintf(&b, "SELECT x FROM {{ ref(%q) }}", n)
		}
		return b.String()
	}
	per := leaves / mids
	var top []string
	for m := 0; m < mids; m++ {
		var in []string
		for l := m * per; l < (m+1)*per; l++ {
			in = append(in, fmt.Sprintf("l%d", l))
		}
		write(fmt.Sprintf("models/mid/m%d.sql", m), "/* idemc\nmaterialized = \"table\"\n*/\n"+union(in)+"\n")
		top = append(top, fmt.Sprintf("m%d", m))
	}
	write("models/top.sql", "/* idemc\nmaterialized = \"table\"\n*/\n"+union(top)+"\n")
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
