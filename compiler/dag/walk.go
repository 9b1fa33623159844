package dag

import (
	"context"
	"fmt"
	"runtime/debug"
	"strconv"
)

// Status is what happened to one node in a walk.
type Status int

// The statuses of a walked node. The zero Status is not a valid result.
const (
	// Succeeded: fn ran and returned nil.
	Succeeded Status = iota + 1
	// Failed: fn ran and returned an error (or panicked).
	Failed
	// Skipped: fn was not called, because an upstream node failed or was
	// skipped, because the walk stopped early (FailFast), or because the
	// context was cancelled before the node could start.
	Skipped
)

// String returns "succeeded", "failed" or "skipped".
func (s Status) String() string {
	switch s {
	case Succeeded:
		return "succeeded"
	case Failed:
		return "failed"
	case Skipped:
		return "skipped"
	}
	return "Status(" + strconv.Itoa(int(s)) + ")"
}

// Result is the outcome of one node of a walk.
type Result struct {
	ID     string
	Status Status
	// Err is fn's error for a Failed node. For a node Skipped because the
	// context was cancelled it is context.Cause(ctx); otherwise it is nil.
	Err error
	// SkippedBecause is, for a Skipped node, the failed node at the root of
	// the skip: the failed upstream (possibly several levels up) or, under
	// FailFast, the failure that stopped the walk. When several failures
	// lead to the node, the one earliest in TopoOrder is named. It is empty
	// when the node was skipped only because the context was cancelled.
	SkippedBecause string
}

// WalkOptions configure Walk.
type WalkOptions struct {
	// Threads bounds how many calls of fn run at once. It is a semaphore
	// held only while fn runs, never while a node waits for its upstream
	// nodes. Values below 1 mean 1.
	Threads int
	// FailFast stops the walk at the first failure: nodes already running
	// finish, no new node starts, and nodes that did not start are Skipped
	// with SkippedBecause set to the failed node.
	FailFast bool
}

// Walk calls fn for every node, each once all of its upstream nodes have
// succeeded, running up to opts.Threads calls at once. A node with a failed
// or skipped upstream node is Skipped and fn is not called for it. Among the
// nodes ready at the same time, the one earliest in TopoOrder starts first,
// so with Threads = 1 fn is called in exactly TopoOrder.
//
// When ctx is cancelled, no new node starts; nodes not yet started are
// Skipped with Err = context.Cause(ctx). Running calls receive ctx and are
// expected to return.
//
// If fn panics, no new node starts; once the running calls have returned,
// Walk panics again with a message naming the node, the original value and
// its stack.
//
// Walk returns one Result per node, in TopoOrder. Its error is non-nil only
// when the graph has a cycle (a *CycleError), in which case fn is never
// called. A failed node is reported in the results, not as an error; see
// RootCauses.
func (g *Graph) Walk(ctx context.Context, opts WalkOptions, fn func(ctx context.Context, id string) error) ([]Result, error) {
	order, err := g.topo()
	if err != nil {
		return nil, err
	}
	if len(order) == 0 {
		return []Result{}, nil
	}
	w := g.newWalker(ctx, order, opts)
	w.run(fn)
	if w.firstPan != nil {
		panic(fmt.Sprintf("dag: panic in node %q: %v\n\n%s", w.panicID, w.firstPan.value, w.firstPan.stack))
	}
	return w.results, nil
}

// noCause is a walker's cause of a node decided by no failure (it
// succeeded, or the context was cancelled).
const noCause = -1

// walker is one Walk. Everything in it works on positions in TopoOrder, not
// on the graph's dense ids.
type walker struct {
	ctx     context.Context
	opts    WalkOptions
	threads int
	n       int
	results []Result
	// Upstream and downstream positions, laid out as compressed sparse
	// rows: the neighbours of p are xs[xOff[p]:xOff[p+1]].
	upOff, downOff []int32
	ups, downs     []int32
	pending        []int32 // upstream nodes not yet decided
	// cause[p] is the position of the failed node at the root of p's
	// status (p itself when p failed), or noCause.
	cause []int
	ready intHeap // positions; popping gives the earliest in TopoOrder
	stack []int   // settle's scratch

	stopped   bool
	stopCause int
	firstPan  *panicked
	panicID   string
}

// walkOutcome is what one call of fn returned.
type walkOutcome struct {
	p   int
	err error // a *panicked when fn panicked
}

func (g *Graph) newWalker(ctx context.Context, order []int, opts WalkOptions) *walker {
	n := len(order)
	w := &walker{ctx: ctx, opts: opts, threads: max(opts.Threads, 1), n: n, results: make([]Result, n),
		upOff: make([]int32, n+1), downOff: make([]int32, n+1), pending: make([]int32, n), cause: make([]int, n), stopCause: noCause}
	pos := make([]int, n)
	for p, v := range order {
		pos[v] = p
		w.results[p].ID = g.ids[v]
		w.upOff[p+1] = w.upOff[p] + int32(len(g.up[v]))
		w.downOff[p+1] = w.downOff[p] + int32(len(g.down[v]))
	}
	w.ups, w.downs = make([]int32, w.upOff[n]), make([]int32, w.downOff[n])
	for p, v := range order {
		for k, u := range g.up[v] {
			w.ups[int(w.upOff[p])+k] = int32(pos[u])
		}
		for k, d := range g.down[v] {
			w.downs[int(w.downOff[p])+k] = int32(pos[d])
		}
		w.pending[p] = int32(len(g.up[v]))
		if w.pending[p] == 0 {
			w.ready.push(p)
		}
	}
	return w
}

func (w *walker) up(p int) []int32   { return w.ups[w.upOff[p]:w.upOff[p+1]] }
func (w *walker) down(p int) []int32 { return w.downs[w.downOff[p]:w.downOff[p+1]] }

// run calls fn on up to threads workers until no node is ready and none
// runs, then marks the nodes that never started.
func (w *walker) run(fn func(context.Context, string) error) {
	type job struct {
		p  int
		id string
	}
	workers := min(w.threads, w.n)
	jobs := make(chan job, workers)
	done := make(chan walkOutcome, workers)
	finished := make(chan struct{})
	for range workers {
		go func() {
			defer func() { finished <- struct{}{} }()
			for j := range jobs {
				done <- walkOutcome{p: j.p, err: call(w.ctx, fn, j.id)}
			}
		}()
	}
	running, ctxDone := 0, w.ctx.Done()
	for {
		for !w.stopped && running < w.threads && len(w.ready) > 0 {
			if w.ctx.Err() != nil {
				w.stop(noCause)
				break
			}
			p := w.ready.pop()
			running++
			jobs <- job{p: p, id: w.results[p].ID}
		}
		if running == 0 {
			break
		}
		select {
		case o := <-done:
			running--
			w.record(o)
		case <-ctxDone:
			ctxDone = nil
			w.stop(noCause)
		}
	}
	close(jobs)
	for range workers {
		<-finished
	}
	if w.stopped {
		w.skipUnstarted()
	}
}

// record decides the node fn returned for and settles it.
func (w *walker) record(o walkOutcome) {
	r := &w.results[o.p]
	pv, isPanic := o.err.(*panicked)
	switch {
	case isPanic:
		r.Status, r.Err, w.cause[o.p] = Failed, pv, o.p
		if w.firstPan == nil {
			w.firstPan, w.panicID = pv, r.ID
		}
		w.stop(o.p)
	case o.err != nil:
		r.Status, r.Err, w.cause[o.p] = Failed, o.err, o.p
		if w.opts.FailFast {
			w.stop(o.p)
		}
	default:
		r.Status, w.cause[o.p] = Succeeded, noCause
	}
	w.settle(o.p)
}

// stop starts no new node from now on; c is the first cause.
func (w *walker) stop(c int) {
	if !w.stopped {
		w.stopped, w.stopCause = true, c
	}
}

// skipUnstarted: the walk stopped early, so every node not decided yet did
// not start.
func (w *walker) skipUnstarted() {
	for p := range w.n {
		if w.results[p].Status != 0 {
			continue
		}
		if c, blocked := w.skipCause(p); blocked {
			w.skip(p, c)
		} else {
			w.skip(p, w.stopCause)
		}
	}
}

// skipCause returns the root cause for a node with a non-succeeded
// upstream node, or false if all of its upstream nodes succeeded.
func (w *walker) skipCause(p int) (int, bool) {
	best, blocked := w.n, false
	for _, u := range w.up(p) {
		if w.results[u].Status == Succeeded {
			continue
		}
		blocked = true
		c := w.cause[u]
		if c == noCause {
			c = w.n // cancellation sorts after every failure
		}
		best = min(best, c)
	}
	if best == w.n {
		best = noCause
	}
	return best, blocked
}

func (w *walker) skip(p, c int) {
	r := &w.results[p]
	r.Status = Skipped
	w.cause[p] = c
	if c == noCause {
		r.Err = context.Cause(w.ctx)
	} else {
		r.SkippedBecause = w.results[c].ID
	}
}

// settle records that p is decided and makes its downstream nodes ready
// or skips them, transitively.
func (w *walker) settle(p int) {
	w.stack = append(w.stack[:0], p)
	for len(w.stack) > 0 {
		q := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		for _, d := range w.down(q) {
			w.pending[d]--
			if w.pending[d] > 0 {
				continue
			}
			if c, blocked := w.skipCause(int(d)); blocked {
				w.skip(int(d), c)
				w.stack = append(w.stack, int(d))
			} else {
				w.ready.push(int(d))
			}
		}
	}
}

// panicked records a panic in fn.
type panicked struct {
	value any
	stack []byte
}

func (p *panicked) Error() string { return fmt.Sprintf("panic: %v", p.value) }

// call runs fn, turning a panic into a *panicked error.
func call(ctx context.Context, fn func(context.Context, string) error, id string) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &panicked{value: r, stack: debug.Stack()}
		}
	}()
	return fn(ctx, id)
}

// RootCauses returns the Failed results, in their order: the failures to
// report, leaving out the nodes skipped because of them.
func RootCauses(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if r.Status == Failed {
			out = append(out, r)
		}
	}
	return out
}
