// Package dag is a deterministic directed acyclic graph over string node ids,
// with a concurrent, dependency-ordered walk.
//
// An edge runs from an upstream node to a downstream node: the downstream node
// depends on the upstream one (a model depends on the models it refs). Every
// listing the package returns is sorted, so that output built from a Graph is
// stable from run to run and fit for golden files.
//
// Internally ids are interned to dense ints; the string ids only matter for
// ordering and output.
//
// A Graph is not safe for concurrent mutation. Any number of goroutines may
// call its read methods (everything except Add and Connect) at the same time
// as long as nobody mutates it.
package dag

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// ErrCycle is the sentinel wrapped by every *CycleError, for callers that
// branch with errors.Is.
var ErrCycle = errors.New("dag: cycle")

// CycleError names one dependency cycle. Cycle starts and ends with the same
// node, which is the lexically smallest node of the cycle; consecutive
// elements follow edges from upstream to downstream.
type CycleError struct {
	Cycle []string
}

// Error returns "dependency cycle: a -> b -> c -> a".
func (e *CycleError) Error() string {
	return "dependency cycle: " + strings.Join(e.Cycle, " -> ")
}

// Unwrap returns ErrCycle.
func (e *CycleError) Unwrap() error { return ErrCycle }

// Graph is a directed graph over string ids. The zero value is not usable;
// create one with New.
type Graph struct {
	index map[string]int // id -> dense int
	ids   []string       // dense int -> id
	down  [][]int        // direct downstream nodes, in insertion order
	up    [][]int        // direct upstream nodes, in insertion order
	edges map[uint64]struct{}

	// mu guards sorted, the name order of the nodes, computed on first use
	// by a read method and valid while no node is added (ids only grow, so
	// a length check tells whether it is current).
	mu     sync.Mutex
	sorted *ranking

	// visits counts the edges the reachability walks followed, so that a
	// test can tell a linear expansion from a quadratic one (Visits).
	visits atomic.Int64
}

// Visits is the number of edges the graph's reachability walks (Ancestors,
// Descendants, AncestorsOfAll) have followed so far.
func (g *Graph) Visits() int64 { return g.visits.Load() }

// ranking is the name order of the nodes: perm lists the dense ints sorted
// by id and rank is each dense int's position in perm. Read-only once built.
type ranking struct {
	perm, rank []int
}

// New returns an empty graph.
func New() *Graph {
	return &Graph{
		index: make(map[string]int),
		edges: make(map[uint64]struct{}),
	}
}

// intern returns the dense int of id, adding the node if it is new.
func (g *Graph) intern(id string) int {
	if i, ok := g.index[id]; ok {
		return i
	}
	i := len(g.ids)
	g.index[id] = i
	g.ids = append(g.ids, id)
	g.down = append(g.down, nil)
	g.up = append(g.up, nil)
	return i
}

// Add adds the node id. Adding a node that exists is a no-op.
func (g *Graph) Add(id string) { g.intern(id) }

// Connect adds the edge upstream -> downstream: downstream depends on
// upstream. Missing nodes are added. Connecting twice is a no-op. A node may
// be connected to itself; that is a cycle, reported by TopoOrder and Cycles.
func (g *Graph) Connect(upstream, downstream string) {
	u, d := g.intern(upstream), g.intern(downstream)
	key := uint64(u)<<32 | uint64(uint32(d))
	if _, ok := g.edges[key]; ok {
		return
	}
	g.edges[key] = struct{}{}
	g.down[u] = append(g.down[u], d)
	g.up[d] = append(g.up[d], u)
}

// Has reports whether id is a node of the graph.
func (g *Graph) Has(id string) bool {
	_, ok := g.index[id]
	return ok
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return len(g.ids) }

// Nodes returns every node, sorted.
func (g *Graph) Nodes() []string {
	perm, _ := g.ranks()
	return g.names0(perm)
}

// Upstream returns the nodes id directly depends on, sorted. It returns nil
// for an unknown id.
func (g *Graph) Upstream(id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.names(g.up[i])
}

// Downstream returns the nodes that directly depend on id, sorted. It
// returns nil for an unknown id.
func (g *Graph) Downstream(id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.names(g.down[i])
}

// Ancestors returns every node id depends on, directly or transitively,
// sorted. id itself is included only if it is on a cycle.
func (g *Graph) Ancestors(id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.names(g.reach([]int{i}, g.up))
}

// AncestorsOfAll returns every node that one of ids depends on, directly
// or transitively, sorted: the union of their Ancestors in one walk, each
// edge followed once however many ids share it (a loop over Ancestors was
// quadratic on deep graphs). An id is included only when another id, or a
// cycle, leads to it.
func (g *Graph) AncestorsOfAll(ids []string) []string {
	var starts []int
	for _, id := range ids {
		if i, ok := g.index[id]; ok {
			starts = append(starts, i)
		}
	}
	return g.names(g.reach(starts, g.up))
}

// Descendants returns every node that depends on id, directly or
// transitively, sorted. id itself is included only if it is on a cycle.
func (g *Graph) Descendants(id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	return g.names(g.reach([]int{i}, g.down))
}

// reach returns the nodes reachable from starts over adj, excluding a
// start unless a path leads to it.
func (g *Graph) reach(starts []int, adj [][]int) []int {
	seen := make([]bool, len(g.ids))
	var out []int
	stack := append([]int(nil), starts...)
	var n int64
	defer func() { g.visits.Add(n) }()
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, w := range adj[v] {
			n++
			if !seen[w] {
				seen[w] = true
				out = append(out, w)
				stack = append(stack, w)
			}
		}
	}
	return out
}

// names maps dense ints to their ids, sorted.
func (g *Graph) names(ns []int) []string {
	if len(ns) == 0 {
		return []string{}
	}
	out := make([]string, len(ns))
	for k, n := range ns {
		out[k] = g.ids[n]
	}
	slices.Sort(out)
	return out
}

// ranks returns the dense ints sorted by id (perm) and each dense int's
// position in that order (rank). The slices are shared: do not modify them.
func (g *Graph) ranks() (perm, rank []int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if s := g.sorted; s != nil && len(s.perm) == len(g.ids) {
		return s.perm, s.rank
	}
	perm, rank = g.sortIDs()
	g.sorted = &ranking{perm: perm, rank: rank}
	return perm, rank
}

// sortIDs computes the ranking of ranks.
func (g *Graph) sortIDs() (perm, rank []int) {
	n := len(g.ids)
	// Sorting (id, int) pairs keeps the string headers next to each other,
	// which is about twice as fast as sorting ints through an indirection.
	type entry struct {
		id string
		v  int
	}
	entries := make([]entry, n)
	for v, id := range g.ids {
		entries[v] = entry{id, v}
	}
	slices.SortFunc(entries, func(a, b entry) int { return strings.Compare(a.id, b.id) })
	perm = make([]int, n)
	rank = make([]int, n)
	for r, e := range entries {
		perm[r] = e.v
		rank[e.v] = r
	}
	return perm, rank
}

// TopoOrder returns every node in dependency order: each node comes after
// all of its upstream nodes. Among the nodes that are ready at the same time
// the lexically smallest comes first (Kahn's algorithm with a sorted ready
// set), so the order depends only on the graph, never on insertion order.
// If the graph has a cycle TopoOrder returns a *CycleError naming the first
// cycle that Cycles returns.
func (g *Graph) TopoOrder() ([]string, error) {
	order, err := g.topo()
	if err != nil {
		return nil, err
	}
	out := make([]string, len(order))
	for k, v := range order {
		out[k] = g.ids[v]
	}
	return out, nil
}

// topo is TopoOrder over dense ints.
func (g *Graph) topo() ([]int, error) {
	n := len(g.ids)
	perm, rank := g.ranks()
	// Renumber the nodes by rank and lay their downstream lists out in one
	// array (compressed sparse rows), with 32-bit entries: the loop below
	// visits nodes in name order, which is random with respect to memory,
	// so keeping its working set small is what makes it fast.
	off := make([]int32, n+1)
	indeg := make([]int32, n)
	for r, v := range perm {
		off[r+1] = off[r] + int32(len(g.down[v]))
		indeg[r] = int32(len(g.up[v]))
	}
	adj := make([]int32, off[n])
	for r, v := range perm {
		a := adj[off[r]:off[r+1]]
		for k, w := range g.down[v] {
			a[k] = int32(rank[w])
		}
	}
	// The ready set is a min-heap of ranks: popping it yields the lexically
	// smallest ready node without comparing strings.
	ready := make(intHeap, 0, 64)
	for r := range n {
		if indeg[r] == 0 {
			ready = append(ready, r) // ascending ranks already form a heap
		}
	}
	order := make([]int, 0, n)
	for len(ready) > 0 {
		r := ready.pop()
		order = append(order, perm[r])
		for _, w := range adj[off[r]:off[r+1]] {
			indeg[w]--
			if indeg[w] == 0 {
				ready.push(int(w))
			}
		}
	}
	if len(order) != n {
		return nil, g.Cycles()[0]
	}
	return order, nil
}

// Cycles returns one elementary cycle per strongly connected component that
// has a cycle (a component of two or more nodes, or a node connected to
// itself), sorted by their first node. Each cycle starts at the lexically
// smallest node of its component and is a shortest cycle through it. Cycles
// returns nil for an acyclic graph.
func (g *Graph) Cycles() []*CycleError {
	comp := g.sccs()
	n := len(g.ids)
	// Group the members of each cyclic component.
	members := make(map[int][]int)
	size := make(map[int]int)
	for v := range n {
		size[comp[v]]++
	}
	for v := range n {
		c := comp[v]
		if size[c] > 1 || g.selfLoop(v) {
			members[c] = append(members[c], v)
		}
	}
	if len(members) == 0 {
		return nil
	}
	_, rank := g.ranks()
	var out []*CycleError
	for c, vs := range members {
		start := slices.MinFunc(vs, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) })
		out = append(out, &CycleError{Cycle: g.names0(g.shortestCycle(start, c, comp, rank))})
	}
	slices.SortFunc(out, func(a, b *CycleError) int { return slices.Compare(a.Cycle, b.Cycle) })
	return out
}

func (g *Graph) selfLoop(v int) bool {
	_, ok := g.edges[uint64(v)<<32|uint64(uint32(v))]
	return ok
}

// names0 maps dense ints to ids, keeping their order.
func (g *Graph) names0(ns []int) []string {
	out := make([]string, len(ns))
	for k, v := range ns {
		out[k] = g.ids[v]
	}
	return out
}

// shortestCycle finds a shortest path start -> ... -> start inside the
// component c by breadth-first search, visiting downstream nodes in
// lexical order so that the result is deterministic.
func (g *Graph) shortestCycle(start, c int, comp, rank []int) []int {
	parent := map[int]int{start: -1}
	queue := []int{start}
	byRank := func(a, b int) int { return cmp.Compare(rank[a], rank[b]) }
	for len(queue) > 0 {
		v := queue[0]
		queue = queue[1:]
		next := slices.Clone(g.down[v])
		slices.SortFunc(next, byRank)
		for _, w := range next {
			if comp[w] != c {
				continue
			}
			if w == start {
				path := []int{start}
				for x := v; x != -1; x = parent[x] {
					path = append(path, x)
				}
				slices.Reverse(path) // start, ..., v, start
				return path
			}
			if _, seen := parent[w]; !seen {
				parent[w] = v
				queue = append(queue, w)
			}
		}
	}
	panic("dag: internal error: no cycle in a cyclic component")
}

// sccs labels every node with its strongly connected component using an
// iterative Tarjan's algorithm (no recursion, so deep chains cannot overflow
// the stack).
func (g *Graph) sccs() []int {
	n := len(g.ids)
	const unvisited = -1
	index := make([]int, n)
	low := make([]int, n)
	comp := make([]int, n)
	onStack := make([]bool, n)
	for i := range index {
		index[i] = unvisited
	}
	var stack []int
	type frame struct{ v, next int }
	var call []frame
	counter, ncomp := 0, 0
	for root := range n {
		if index[root] != unvisited {
			continue
		}
		call = append(call, frame{v: root})
		index[root], low[root] = counter, counter
		counter++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			v := f.v
			if f.next < len(g.down[v]) {
				w := g.down[v][f.next]
				f.next++
				if index[w] == unvisited {
					index[w], low[w] = counter, counter
					counter++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{v: w})
				} else if onStack[w] {
					low[v] = min(low[v], index[w])
				}
				continue
			}
			// v is finished.
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp[w] = ncomp
					if w == v {
						break
					}
				}
				ncomp++
			}
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].v
				low[p] = min(low[p], low[v])
			}
		}
	}
	return comp
}

// Subgraph returns the subgraph induced by keep: the kept nodes and every
// edge between two kept nodes. Ids in keep that are not in g are ignored.
func (g *Graph) Subgraph(keep []string) *Graph {
	in := make([]bool, len(g.ids))
	for _, id := range keep {
		if i, ok := g.index[id]; ok {
			in[i] = true
		}
	}
	s := New()
	for v, k := range in {
		if k {
			s.Add(g.ids[v])
		}
	}
	for v, k := range in {
		if !k {
			continue
		}
		for _, w := range g.down[v] {
			if in[w] {
				s.Connect(g.ids[v], g.ids[w])
			}
		}
	}
	return s
}

// String renders the graph one node per line in sorted order, each followed
// by its sorted downstream nodes indented by two spaces:
//
//	a
//	  b
//	b
//
// The output is stable and fit for golden files.
func (g *Graph) String() string {
	perm, rank := g.ranks()
	var b strings.Builder
	var next []int
	for _, v := range perm {
		b.WriteString(g.ids[v])
		b.WriteByte('\n')
		next = append(next[:0], g.down[v]...)
		slices.SortFunc(next, func(a, c int) int { return cmp.Compare(rank[a], rank[c]) })
		for _, w := range next {
			b.WriteString("  ")
			b.WriteString(g.ids[w])
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// intHeap is a binary min-heap of ints, without container/heap's interface
// calls in the hot loop.
type intHeap []int

func (h *intHeap) push(x int) {
	s := append(*h, x)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if s[p] <= x {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = x
	*h = s
}

func (h *intHeap) pop() int {
	s := *h
	top := s[0]
	last := s[len(s)-1]
	s = s[:len(s)-1]
	n := len(s)
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && s[c+1] < s[c] {
			c++
		}
		if last <= s[c] {
			break
		}
		s[i] = s[c]
		i = c
	}
	if n > 0 {
		s[i] = last
	}
	*h = s
	return top
}
