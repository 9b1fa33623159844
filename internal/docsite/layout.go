package docsite

import (
	"fmt"
	"sort"
	"strings"
)

// The drawn size of a node box and the gaps between them, in SVG units.
const (
	nodeH    = 36.0
	gapX     = 70.0
	gapY     = 18.0
	margin   = 20.0
	charW    = 8.6 // a name's width per character at the page's font size
	minNodeW = 110.0
)

// layout places the nodes in layers, left to right: a node's layer is the
// longest path from a node with no upstream, so every edge points right.
// An edge that spans layers passes through a waypoint in each layer
// between, so it runs between boxes, not through them. Inside a layer
// boxes and waypoints are ordered by the mean position of their
// neighbours (a few sweeps each way; ties by name), which keeps most edges
// from crossing. Deterministic: the same graph gives the same picture.
func layout(s *Site) {
	nodes := s.byName()
	order := topo(s.Nodes, nodes)
	layers := [][]*Node{}
	for _, n := range order {
		n.Layer = 0
		for _, u := range n.Upstream {
			if up := nodes[u]; up != nil && up.Layer+1 > n.Layer {
				n.Layer = up.Layer + 1
			}
		}
		for len(layers) <= n.Layer {
			layers = append(layers, nil)
		}
		layers[n.Layer] = append(layers[n.Layer], n)
	}
	g := waypoints(order, nodes, layers)
	orderLayers(g.layers, g.up, g.down)
	coordinates(s, g.layers)
	s.Edges = s.Edges[:0]
	for _, n := range order {
		for _, d := range n.Downstream {
			if to := nodes[d]; to != nil {
				s.Edges = append(s.Edges, Edge{From: n.Name, To: d, Path: edgePath(n, g.via[[2]string{n.Name, d}], to)})
			}
		}
	}
}

// layered is the graph as drawn: boxes and waypoints by layer, and each
// one's neighbours in the next and previous layer.
type layered struct {
	layers   [][]*Node
	up, down map[string][]string
	via      map[[2]string][]*Node // an edge's waypoints, left to right
}

func waypoints(order []*Node, nodes map[string]*Node, layers [][]*Node) *layered {
	g := &layered{layers: layers, up: map[string][]string{}, down: map[string][]string{}, via: map[[2]string][]*Node{}}
	link := func(a, b string) {
		g.down[a] = append(g.down[a], b)
		g.up[b] = append(g.up[b], a)
	}
	for _, n := range order {
		for _, d := range n.Downstream {
			to := nodes[d]
			if to == nil {
				continue
			}
			prev := n.Name
			for l := n.Layer + 1; l < to.Layer; l++ {
				w := &Node{Name: fmt.Sprintf("\x00%s>%s/%d", n.Name, d, l), Layer: l}
				g.layers[l] = append(g.layers[l], w)
				g.via[[2]string{n.Name, d}] = append(g.via[[2]string{n.Name, d}], w)
				link(prev, w.Name)
				prev = w.Name
			}
			link(prev, d)
		}
	}
	return g
}

// orderLayers sorts each layer by its neighbours' mean position.
func orderLayers(layers [][]*Node, up, down map[string][]string) {
	pos := map[string]float64{}
	place := func() {
		for _, l := range layers {
			for i, n := range l {
				pos[n.Name] = float64(i)
			}
		}
	}
	place()
	for sweep := 0; sweep < 4; sweep++ {
		for li := range layers {
			nb := up
			if sweep%2 == 1 {
				li, nb = len(layers)-1-li, down
			}
			l := layers[li]
			bary := map[string]float64{}
			for _, n := range l {
				bary[n.Name] = mean(nb[n.Name], pos, pos[n.Name])
			}
			sort.SliceStable(l, func(i, j int) bool {
				if bary[l[i].Name] != bary[l[j].Name] {
					return bary[l[i].Name] < bary[l[j].Name]
				}
				return l[i].Name < l[j].Name
			})
			place()
		}
	}
}

// coordinates sets each node's box: layers are columns as wide as their
// widest name, each centred vertically on the tallest layer.
func coordinates(s *Site, layers [][]*Node) {
	tallest := 0
	for _, l := range layers {
		tallest = max(tallest, len(l))
	}
	x := margin
	for _, l := range layers {
		w := minNodeW
		for _, n := range l {
			if !isWaypoint(n) {
				w = max(w, float64(len(n.Name))*charW+24)
			}
		}
		top := margin + float64(tallest-len(l))*(nodeH+gapY)/2
		for i, n := range l {
			n.X, n.Y, n.W = x, top+float64(i)*(nodeH+gapY), w
			if !isWaypoint(n) {
				n.W = max(minNodeW, float64(len(n.Name))*charW+24)
				n.X += (w - n.W) / 2 // centred in its layer's column
			}
		}
		x += w + gapX
	}
	s.Width = x - gapX + margin
	s.Height = 2*margin + float64(tallest)*(nodeH+gapY) - gapY
	if len(layers) == 0 {
		s.Width, s.Height = 2*margin, 2*margin
	}
}

func isWaypoint(n *Node) bool { return strings.HasPrefix(n.Name, "\x00") }

// edgePath runs from the right side of a box to the left side of the next:
// a cubic curve between layers, straight across each waypoint's layer.
func edgePath(a *Node, via []*Node, b *Node) string {
	x, y := a.X+a.W, a.Y+nodeH/2
	var p strings.Builder
	fmt.Fprintf(&p, "M%.1f,%.1f", x, y)
	curve := func(x2, y2 float64) {
		mid := (x + x2) / 2
		fmt.Fprintf(&p, " C%.1f,%.1f %.1f,%.1f %.1f,%.1f", mid, y, mid, y2, x2, y2)
		x, y = x2, y2
	}
	for _, w := range via {
		curve(w.X, w.Y+nodeH/2)
		x = w.X + w.W
		fmt.Fprintf(&p, " L%.1f,%.1f", x, y)
	}
	curve(b.X, b.Y+nodeH/2)
	return p.String()
}

func mean(names []string, pos map[string]float64, def float64) float64 {
	sum, n := 0.0, 0
	for _, nm := range names {
		if p, ok := pos[nm]; ok {
			sum += p
			n++
		}
	}
	if n == 0 {
		return def
	}
	return sum / float64(n)
}

// topo orders the nodes upstream first (Kahn's algorithm, ties by name);
// the compiler has refused cycles, but a node on one would come last.
func topo(list []*Node, nodes map[string]*Node) []*Node {
	indeg := map[string]int{}
	for _, n := range list {
		for _, u := range n.Upstream {
			if nodes[u] != nil {
				indeg[n.Name]++
			}
		}
	}
	var ready []string
	for _, n := range list {
		if indeg[n.Name] == 0 {
			ready = append(ready, n.Name)
		}
	}
	var out []*Node
	done := map[string]bool{}
	for len(ready) > 0 {
		sort.Strings(ready)
		name := ready[0]
		ready = ready[1:]
		n := nodes[name]
		out = append(out, n)
		done[name] = true
		for _, d := range n.Downstream {
			if indeg[d]--; indeg[d] == 0 && nodes[d] != nil {
				ready = append(ready, d)
			}
		}
	}
	for _, n := range list {
		if !done[n.Name] {
			out = append(out, n)
		}
	}
	return out
}
