package dag

import (
	"errors"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// build returns a graph from "up>down" edges and bare node names.
func build(specs ...string) *Graph {
	g := New()
	for _, s := range specs {
		if i := indexByte(s, '>'); i >= 0 {
			g.Connect(s[:i], s[i+1:])
		} else {
			g.Add(s)
		}
	}
	return g
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func TestAddConnectIdempotent(t *testing.T) {
	g := New()
	g.Add("a")
	g.Add("a")
	g.Connect("a", "b")
	g.Connect("a", "b")
	g.Add("b")
	if g.Len() != 2 {
		t.Fatalf("Len = %d, want 2", g.Len())
	}
	if got := g.Downstream("a"); !slices.Equal(got, []string{"b"}) {
		t.Errorf("Downstream(a) = %q, want [b]", got)
	}
	if got := g.Upstream("b"); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Upstream(b) = %q, want [a]", got)
	}
	if !g.Has("a") || !g.Has("b") || g.Has("c") {
		t.Errorf("Has: a=%v b=%v c=%v", g.Has("a"), g.Has("b"), g.Has("c"))
	}
}

func TestNeighbours(t *testing.T) {
	// raw -> stg -> daily -> summary ; users -> dim -> summary ; stg -> dim
	g := build("stg>daily", "raw>stg", "daily>summary", "dim>summary", "users>dim", "stg>dim", "lonely")
	tests := []struct {
		name string
		fn   func(string) []string
		id   string
		want []string
	}{
		{"Upstream", g.Upstream, "summary", []string{"daily", "dim"}},
		{"Upstream", g.Upstream, "raw", []string{}},
		{"Downstream", g.Downstream, "stg", []string{"daily", "dim"}},
		{"Ancestors", g.Ancestors, "summary", []string{"daily", "dim", "raw", "stg", "users"}},
		{"Ancestors", g.Ancestors, "dim", []string{"raw", "stg", "users"}},
		{"Descendants", g.Descendants, "raw", []string{"daily", "dim", "stg", "summary"}},
		{"Descendants", g.Descendants, "summary", []string{}},
		{"Descendants", g.Descendants, "lonely", []string{}},
		{"Ancestors", g.Ancestors, "missing", nil},
	}
	for _, tt := range tests {
		got := tt.fn(tt.id)
		if !slices.Equal(got, tt.want) || (got == nil) != (tt.want == nil) {
			t.Errorf("%s(%q) = %#v, want %#v", tt.name, tt.id, got, tt.want)
		}
	}
	if got, want := g.Nodes(), []string{"daily", "dim", "lonely", "raw", "stg", "summary", "users"}; !slices.Equal(got, want) {
		t.Errorf("Nodes = %q, want %q", got, want)
	}
}

func TestTopoOrder(t *testing.T) {
	g := build("stg>daily", "raw>stg", "daily>summary", "dim>summary", "users>dim", "stg>dim", "lonely")
	got, err := g.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	// Ready set sorted: {lonely, raw, users} -> lonely, raw; then {stg, users} ...
	want := []string{"lonely", "raw", "stg", "daily", "users", "dim", "summary"}
	if !slices.Equal(got, want) {
		t.Errorf("TopoOrder = %q\nwant        %q", got, want)
	}
}

// randomDAG returns the edges of a random DAG over n nodes named so that
// name order differs from a topological order.
func randomDAG(r *rand.Rand, n, degree int) [][2]string {
	names := make([]string, n)
	for i := range names {
		names[i] = "m" + strconv.Itoa(r.IntN(1<<30)) + "_" + strconv.Itoa(i)
	}
	var edges [][2]string
	for d := 1; d < n; d++ {
		for range r.IntN(degree + 1) {
			u := r.IntN(d)
			edges = append(edges, [2]string{names[u], names[d]})
		}
	}
	for _, name := range names {
		edges = append(edges, [2]string{name, ""}) // bare node
	}
	return edges
}

func fromEdges(edges [][2]string) *Graph {
	g := New()
	for _, e := range edges {
		if e[1] == "" {
			g.Add(e[0])
		} else {
			g.Connect(e[0], e[1])
		}
	}
	return g
}

func TestTopoOrderDeterministicAndValid(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	edges := randomDAG(r, 500, 4)
	g := fromEdges(edges)
	want, err := g.TopoOrder()
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != g.Len() {
		t.Fatalf("TopoOrder has %d nodes, graph %d", len(want), g.Len())
	}
	pos := make(map[string]int, len(want))
	for i, id := range want {
		pos[id] = i
	}
	for _, e := range edges {
		if e[1] != "" && pos[e[0]] >= pos[e[1]] {
			t.Fatalf("edge %s -> %s out of order", e[0], e[1])
		}
	}
	for i := range 5 {
		shuffled := slices.Clone(edges)
		r.Shuffle(len(shuffled), func(a, b int) { shuffled[a], shuffled[b] = shuffled[b], shuffled[a] })
		got, err := fromEdges(shuffled).TopoOrder()
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("shuffle %d: TopoOrder depends on insertion order", i)
		}
		if s, w := fromEdges(shuffled).String(), g.String(); s != w {
			t.Fatalf("shuffle %d: String depends on insertion order", i)
		}
	}
}

func TestCycles(t *testing.T) {
	tests := []struct {
		name  string
		graph *Graph
		want  []string // Error() of each cycle
	}{
		{"none", build("a>b", "b>c"), nil},
		{"triangle", build("c>a", "b>c", "x>b", "a>b", "c>y"), []string{"dependency cycle: a -> b -> c -> a"}},
		{"self-loop", build("ok>x", "x>x"), []string{"dependency cycle: x -> x"}},
		{"two disjoint", build("q>p", "p>q", "z>m", "m>n", "n>z", "p>m"), []string{
			"dependency cycle: m -> n -> z -> m",
			"dependency cycle: p -> q -> p",
		}},
		// One component holding several cycles through its smallest node:
		// the shortest is named (a -> d -> a, not a -> b -> c -> a).
		{"shortest in component", build("a>b", "b>c", "c>a", "a>d", "d>a"), []string{"dependency cycle: a -> d -> a"}},
		// Self-loop on a node that is also in a larger component: the shortest wins.
		{"self-loop in component", build("a>b", "b>a", "a>a"), []string{"dependency cycle: a -> a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, c := range tt.graph.Cycles() {
				if c.Cycle[0] != c.Cycle[len(c.Cycle)-1] {
					t.Errorf("cycle %q does not close", c.Cycle)
				}
				got = append(got, c.Error())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Cycles = %q\nwant     %q", got, tt.want)
			}
			_, err := tt.graph.TopoOrder()
			if tt.want == nil {
				if err != nil {
					t.Errorf("TopoOrder: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrCycle) {
				t.Fatalf("TopoOrder error %v does not wrap ErrCycle", err)
			}
			var ce *CycleError
			if !errors.As(err, &ce) {
				t.Fatalf("TopoOrder error %T is not a *CycleError", err)
			}
			if ce.Error() != tt.want[0] {
				t.Errorf("TopoOrder error = %q, want %q", ce.Error(), tt.want[0])
			}
		})
	}
}

func TestCyclesDeepChain(t *testing.T) {
	// A 200,000-node cycle: the SCC search must not recurse.
	const n = 200_000
	g := New()
	for i := range n {
		g.Connect("n"+strconv.Itoa(i), "n"+strconv.Itoa((i+1)%n))
	}
	cs := g.Cycles()
	if len(cs) != 1 || len(cs[0].Cycle) != n+1 || cs[0].Cycle[0] != "n0" {
		t.Fatalf("got %d cycles, first of length %d", len(cs), len(cs[0].Cycle))
	}
}

func TestSubgraph(t *testing.T) {
	g := build("a>b", "b>c", "a>c", "c>d", "x")
	s := g.Subgraph([]string{"d", "a", "c", "missing", "a"})
	if got, want := s.Nodes(), []string{"a", "c", "d"}; !slices.Equal(got, want) {
		t.Errorf("Nodes = %q, want %q", got, want)
	}
	if got, want := s.String(), "a\n  c\nc\n  d\nd\n"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	// The original is untouched.
	if g.Len() != 5 || !slices.Equal(g.Downstream("a"), []string{"b", "c"}) {
		t.Errorf("Subgraph modified the graph: %q", g.String())
	}
}

func TestStringGolden(t *testing.T) {
	g := build(
		"raw.staging_events>stg_events", "stg_events>events_daily", "events_daily>summary",
		"raw.users>dim_users", "dim_users>summary", "stg_events>dim_users", "orphan",
	)
	golden := filepath.Join("testdata", "string.golden")
	got := g.String()
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("String() mismatch (run go test -update to accept)\n--- got\n%s--- want\n%s", got, want)
	}
}

// benchGraph returns a layered graph of n nodes with about 3 upstream
// nodes each.
func benchGraph(n int) *Graph {
	r := rand.New(rand.NewPCG(7, 7))
	g := New()
	names := make([]string, n)
	for i := range names {
		names[i] = "model_" + strconv.Itoa(r.IntN(1<<30)) + "_" + strconv.Itoa(i)
		g.Add(names[i])
	}
	for d := 1; d < n; d++ {
		for range 3 {
			g.Connect(names[r.IntN(d)], names[d])
		}
	}
	return g
}

func BenchmarkTopoOrder(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			g := benchGraph(n)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := g.TopoOrder(); err != nil {
					b.Fatal(err)
				}
			}
		})
		// cold: the first call on a graph, which also sorts the ids.
		b.Run(strconv.Itoa(n)+"-cold", func(b *testing.B) {
			g := benchGraph(n)
			b.ReportAllocs()
			for b.Loop() {
				g.sorted = nil
				if _, err := g.TopoOrder(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestConcurrentReads(t *testing.T) {
	g := fromEdges(randomDAG(rand.New(rand.NewPCG(9, 9)), 200, 3))
	want := g.String()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := g.TopoOrder(); err != nil {
				t.Error(err)
			}
			_ = g.Nodes()
			if g.String() != want {
				t.Error("String differs between goroutines")
			}
		}()
	}
	wg.Wait()
}
