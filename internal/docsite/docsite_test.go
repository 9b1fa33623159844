package docsite

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/duckdb" // the test project's engine
	_ "github.com/idemc/idemc/adapters/postgres"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

func TestLayout(t *testing.T) {
	tests := []struct {
		name   string
		edges  [][2]string
		single []string
		layers map[string]int
	}{
		{"chain", [][2]string{{"a", "b"}, {"b", "c"}}, nil, map[string]int{"a": 0, "b": 1, "c": 2}},
		{"longest path wins", [][2]string{{"a", "b"}, {"b", "c"}, {"a", "c"}}, nil, map[string]int{"a": 0, "b": 1, "c": 2}},
		{"diamond", [][2]string{{"a", "b"}, {"a", "c"}, {"b", "d"}, {"c", "d"}}, nil, map[string]int{"a": 0, "b": 1, "c": 1, "d": 2}},
		{"lone nodes", nil, []string{"x", "y"}, map[string]int{"x": 0, "y": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := graphSite(tt.edges, tt.single)
			layout(s)
			got := map[string]int{}
			for _, n := range s.Nodes {
				got[n.Name] = n.Layer
			}
			for n, l := range tt.layers {
				if got[n] != l {
					t.Errorf("%s in layer %d, want %d", n, got[n], l)
				}
			}
			if len(s.Edges) != len(tt.edges) {
				t.Fatalf("%d edges drawn, want %d", len(s.Edges), len(tt.edges))
			}
			nodes := s.byName()
			for _, e := range s.Edges {
				a, b := nodes[e.From], nodes[e.To]
				if a.X+a.W >= b.X {
					t.Errorf("edge %s -> %s does not point right: %v..%v", e.From, e.To, a.X+a.W, b.X)
				}
				// One straight run across each layer it spans, between the boxes there.
				if got, want := strings.Count(e.Path, " L"), b.Layer-a.Layer-1; got != want {
					t.Errorf("edge %s -> %s crosses %d layers straight, want %d: %s", e.From, e.To, got, want, e.Path)
				}
			}
			for i, a := range s.Nodes {
				if a.X+a.W > s.Width || a.Y+nodeH > s.Height {
					t.Errorf("%s is outside the %vx%v drawing", a.Name, s.Width, s.Height)
				}
				for _, b := range s.Nodes[i+1:] {
					if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+nodeH && b.Y < a.Y+nodeH {
						t.Errorf("%s and %s overlap", a.Name, b.Name)
					}
				}
			}
			again := graphSite(tt.edges, tt.single)
			layout(again)
			for i, n := range again.Nodes {
				if n.X != s.Nodes[i].X || n.Y != s.Nodes[i].Y {
					t.Errorf("%s moved between two layouts of the same graph", n.Name)
				}
			}
		})
	}
}

// graphSite is a site with only a graph.
func graphSite(edges [][2]string, single []string) *Site {
	s := &Site{}
	get := func(name string) *Node {
		for _, n := range s.Nodes {
			if n.Name == name {
				return n
			}
		}
		n := &Node{Name: name}
		s.Nodes = append(s.Nodes, n)
		return n
	}
	for _, name := range single {
		get(name)
	}
	for _, e := range edges {
		a, b := get(e[0]), get(e[1])
		a.Downstream = append(a.Downstream, b.Name)
		b.Upstream = append(b.Upstream, a.Name)
	}
	return s
}

func TestHeatmap(t *testing.T) {
	day := func(s string) time.Time { t, _ := time.Parse(time.DateOnly, s); return t }
	n := int64(7)
	rows := []runner.StatusRow{
		{Model: "m", Partition: "2026-07-02", Status: "succeeded", Rows: &n, RunID: "r1", Attempt: 1, Current: true},
		{Model: "m", Partition: "2026-07-03", Status: "failed", RunID: "r2", Attempt: 2, Error: "not_null(user_id) failed"},
		{Model: "m", Partition: "2026-07-04", Status: "running", RunID: "r3", Attempt: 1},
		{Model: "m", Partition: "2026-07-05", Status: "succeeded", RunID: "r1", Attempt: 1, Current: false},
		{Model: "m", Partition: "2026-07-09", Status: "succeeded", RunID: "r4", Attempt: 1, Current: true}, // after as_of: still shown
	}
	h := heatmap(rows, day("2026-07-01"), day("2026-07-07"), "day")
	var got []string
	for _, c := range h.Cells {
		s := c.Partition + " " + c.Status
		if c.Stale {
			s += " stale"
		}
		got = append(got, s)
	}
	want := "2026-07-01 missing|2026-07-02 succeeded|2026-07-03 failed|2026-07-04 running|2026-07-05 succeeded stale|2026-07-06 missing|2026-07-09 succeeded"
	if strings.Join(got, "|") != want {
		t.Errorf("cells\n got %s\nwant %s", strings.Join(got, "|"), want)
	}
	if h.Total != 7 || h.Counts["missing"] != 2 || h.Counts["succeeded"] != 3 {
		t.Errorf("total %d, counts %v", h.Total, h.Counts)
	}
	if c := h.Cells[1]; c.Rows == nil || *c.Rows != 7 || c.RunID != "r1" {
		t.Errorf("succeeded cell lost its rows or run: %+v", c)
	}

	// An hourly model of a year keeps its newest maxCells partitions.
	big := heatmap(nil, day("2025-07-01"), day("2026-07-01"), "hour")
	if big.Total != 365*24 || len(big.Cells) != maxCells || big.Cells[len(big.Cells)-1].Partition != "2026-06-30T23" {
		t.Errorf("hourly: total %d, %d cells, last %s", big.Total, len(big.Cells), big.Cells[len(big.Cells)-1].Partition)
	}
}

func TestResolveSource(t *testing.T) {
	nodes := map[string]*Node{
		"users":  {Name: "users", Columns: []*Column{{Name: "id"}, {Name: "name"}}},
		"events": {Name: "events", Columns: []*Column{{Name: "id"}, {Name: "uid"}}},
		"blind":  {Name: "blind"}, // columns not known
	}
	tables := map[string]ColumnRef{"users": {Node: "users"}, "events": {Node: "events"}, "blind": {Node: "blind"}, "raw.ev": {Node: "events"}}
	tests := []struct {
		src     plan.ColumnSource
		want    ColumnRef
		unknown string
	}{
		{plan.ColumnSource{Table: "users", Column: "name"}, ColumnRef{Node: "users", Column: "name"}, ""},
		{plan.ColumnSource{Table: "raw.ev", Column: "uid"}, ColumnRef{Node: "events", Column: "uid"}, ""},
		{plan.ColumnSource{Table: "lake.x", Column: "c"}, ColumnRef{Table: "lake.x", Column: "c"}, ""},
		{plan.ColumnSource{Column: "name", Candidates: []string{"events", "users"}}, ColumnRef{Node: "users", Column: "name"}, ""},
		{plan.ColumnSource{Column: "id", Candidates: []string{"events", "users"}}, ColumnRef{}, "events, users all have it"},
		{plan.ColumnSource{Column: "name", Candidates: []string{"blind", "users"}}, ColumnRef{}, "are not all known"},
	}
	for _, tt := range tests {
		got, why := resolveSource(tt.src, tables, nodes)
		if got != tt.want || (tt.unknown == "") != (why == "") || !strings.Contains(why, tt.unknown) {
			t.Errorf("%+v: got %+v %q, want %+v %q", tt.src, got, why, tt.want, tt.unknown)
		}
	}
}

// TestBuildUnreachable: a target that cannot be read still gets a site,
// with its graph and lineage, and says why it shows no status.
func TestBuildUnreachable(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("project.toml", "name = \"p\"\ndefault_target = \"pg\"\n[targets.pg]\nengine = \"postgres\"\ndsn = \"${IDEMC_DOCSITE_TEST_UNSET}\"\nschema = \"s\"\n")
	write("models/a.sql", "/* idemc\nmaterialized = \"table\"\ndescription = \"the a table\"\n*/\nSELECT 1 AS id, 'x' AS name\n")
	write("models/b.sql", "SELECT a.id, upper(a.name) AS name FROM {{ ref(\"a\") }} AS a\n")
	write("models/c.sql", "SELECT id::int AS id FROM {{ ref(\"b\") }}\n")
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Build(context.Background(), p, compiler.Options{Target: "pg", AsOf: time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.Warehouse, "IDEMC_DOCSITE_TEST_UNSET") {
		t.Errorf("warehouse error %q does not name the unset variable", s.Warehouse)
	}
	nodes := s.byName()
	if nodes["a"].Description != "the a table" || len(s.Edges) != 2 {
		t.Errorf("description %q, %d edges", nodes["a"].Description, len(s.Edges))
	}
	if nodes["a"].Exists != nil || nodes["a"].Latest != nil {
		t.Errorf("a unread target still says exists=%v latest=%v", nodes["a"].Exists, nodes["a"].Latest)
	}
	name := nodes["b"].column("name")
	if name == nil || len(name.From) != 1 || name.From[0] != (ColumnRef{Node: "a", Column: "name"}) {
		t.Errorf("b.name lineage %+v", name)
	}
	if used := nodes["a"].column("name").UsedBy; len(used) != 1 || used[0].Node != "b" {
		t.Errorf("a.name used by %+v", used)
	}
	if c := nodes["c"]; !strings.Contains(c.ColumnsUnknown, "not analysed") || len(c.Columns) != 0 {
		t.Errorf("c (:: cast, not parsed): columns %v, unknown %q", c.Columns, c.ColumnsUnknown)
	}
	out := filepath.Join(dir, "target", "docs")
	n, err := Write(out, s)
	if err != nil || n != 7 { // index, data.js, 2 assets, 3 model pages
		t.Fatalf("wrote %d files: %v", n, err)
	}
	page, _ := os.ReadFile(filepath.Join(out, "models", "c.html"))
	if !strings.Contains(string(page), "lineage unknown: not analysed") {
		t.Errorf("c.html does not say its lineage is unknown")
	}
	index, _ := os.ReadFile(filepath.Join(out, "index.html"))
	if !strings.Contains(string(index), "The warehouse was not read") {
		t.Errorf("index.html has no warning that the warehouse was not read")
	}
	// Nothing is loaded from a network: the site works from file://.
	err = filepath.Walk(out, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		for _, remote := range []string{`src="http`, `href="http`, `url(http`, "@import", "fetch(", "XMLHttpRequest"} {
			if strings.Contains(string(b), remote) {
				t.Errorf("%s loads from a network: %s", path, remote)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestDescriptionOutsideCodeHash: rewording a model's description reruns
// nothing (the code hash is the same); the site shows the new text.
func TestDescriptionOutsideCodeHash(t *testing.T) {
	hash := func(desc string) (string, string) {
		dir := t.TempDir()
		files := map[string]string{
			"project.toml": "name = \"p\"\ndefault_target = \"l\"\n[targets.l]\nengine = \"duckdb\"\npath = \"w.duckdb\"\nschema = \"main\"\n",
			"models/a.sql": "/* idemc\ndescription = \"" + desc + "\"\nmaterialized = \"table\"\n*/\nSELECT 1 AS id\n",
		}
		for rel, text := range files {
			_ = os.MkdirAll(filepath.Dir(filepath.Join(dir, rel)), 0o755)
			if err := os.WriteFile(filepath.Join(dir, rel), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := compiler.Compile(p, compiler.Options{AsOf: time.Now(), Lineage: true})
		if err != nil {
			t.Fatal(err)
		}
		return pl.Nodes["a"].CodeHash, pl.Nodes["a"].Description
	}
	h1, d1 := hash("first words")
	h2, d2 := hash("other words entirely")
	if h1 != h2 || d1 != "first words" || d2 != "other words entirely" {
		t.Errorf("hashes %s %s, descriptions %q %q", h1, h2, d1, d2)
	}
}

// TestForgetWarehouse: after a read that failed half-way the site keeps
// what the analysis knows and nothing the warehouse said.
func TestForgetWarehouse(t *testing.T) {
	yes := true
	s := &Site{Runs: []Run{{RunID: "r"}}, Nodes: []*Node{
		{Name: "seed", Kind: "seed", Exists: &yes, Columns: []*Column{{Name: "a", Type: "INTEGER"}}},
		{Name: "m", Kind: "model", Exists: &yes, Columns: []*Column{{Name: "a", Type: "INTEGER", From: []ColumnRef{{Node: "seed", Column: "a"}}}}},
		{Name: "star", Kind: "model", ColumnsUnknown: "wildcard", Columns: []*Column{{Name: "a", Type: "INTEGER"}}},
	}}
	forgetWarehouse(s)
	n := s.byName()
	if len(s.Runs) != 0 || n["seed"].Exists != nil || len(n["seed"].Columns) != 0 || len(n["star"].Columns) != 0 {
		t.Errorf("warehouse facts kept: runs %v, seed %+v, star %+v", s.Runs, n["seed"], n["star"])
	}
	if c := n["m"].Columns; len(c) != 1 || c[0].Type != "" || len(c[0].From) != 1 {
		t.Errorf("m's analysed column: %+v", c)
	}
}
