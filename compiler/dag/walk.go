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
	n := len(order)
	results := make([]Result, n)
	if n == 0 {
		return results, nil
	}
	threads := max(opts.Threads, 1)

	// Everything below works on positions in order, not on dense ids.
	pos := make([]int, n)
	for p, v := range order {
		pos[v] = p
		results[p].ID = g.ids[v]
	}
	// Upstream and downstream positions, laid out as compressed sparse rows:
	// the neighbours of p are xs[xOff[p]:xOff[p+1]].
	upOff, downOff := make([]int32, n+1), make([]int32, n+1)
	for p, v := range order {
		upOff[p+1] = upOff[p] + int32(len(g.up[v]))
		downOff[p+1] = downOff[p] + int32(len(g.down[v]))
	}
	ups, downs := make([]int32, upOff[n]), make([]int32, downOff[n])
	pending := make([]int32, n) // upstream nodes not yet decided
	for p, v := range order {
		for k, u := range g.up[v] {
			ups[int(upOff[p])+k] = int32(pos[u])
		}
		for k, w := range g.down[v] {
			downs[int(downOff[p])+k] = int32(pos[w])
		}
		pending[p] = int32(len(g.up[v]))
	}
	up := func(p int) []int32 { return ups[upOff[p]:upOff[p+1]] }
	down := func(p int) []int32 { return downs[downOff[p]:downOff[p+1]] }
	// cause[p] is the position of the failed node at the root of p's
	// status (p itself when p failed), or noCause.
	const noCause = -1
	cause := make([]int, n)

	type job struct {
		p  int
		id string
	}
	type outcome struct {
		p   int
		err error // a *panicked when fn panicked
	}
	workers := min(threads, n)
	jobs := make(chan job, workers)
	done := make(chan outcome, workers)
	finished := make(chan struct{})
	for range workers {
		go func() {
			defer func() { finished <- struct{}{} }()
			for j := range jobs {
				done <- outcome{p: j.p, err: call(ctx, fn, j.id)}
			}
		}()
	}

	var ready intHeap // positions; popping gives the earliest in TopoOrder
	for p := range n {
		if pending[p] == 0 {
			ready.push(p)
		}
	}

	// skipCause returns the root cause for a node with a non-succeeded
	// upstream node, or false if all of its upstream nodes succeeded.
	skipCause := func(p int) (int, bool) {
		best, blocked := n, false
		for _, u := range up(p) {
			if results[u].Status == Succeeded {
				continue
			}
			blocked = true
			c := cause[u]
			if c == noCause {
				c = n // cancellation sorts after every failure
			}
			best = min(best, c)
		}
		if best == n {
			best = noCause
		}
		return best, blocked
	}
	skip := func(p, c int) {
		r := &results[p]
		r.Status = Skipped
		cause[p] = c
		if c == noCause {
			r.Err = context.Cause(ctx)
		} else {
			r.SkippedBecause = results[c].ID
		}
	}
	// settle records that p is decided and makes its downstream nodes ready
	// or skips them, transitively.
	var stack []int
	settle := func(p int) {
		stack = append(stack[:0], p)
		for len(stack) > 0 {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, w := range down(q) {
				pending[w]--
				if pending[w] > 0 {
					continue
				}
				if c, blocked := skipCause(int(w)); blocked {
					skip(int(w), c)
					stack = append(stack, int(w))
				} else {
					ready.push(int(w))
				}
			}
		}
	}

	var (
		stopped   bool
		stopCause = noCause
		firstPan  *panicked
		panicID   string
		running   int
		ctxDone   = ctx.Done()
	)
	stop := func(c int) {
		if !stopped {
			stopped, stopCause = true, c
		}
	}
	for {
		for !stopped && running < threads && len(ready) > 0 {
			if ctx.Err() != nil {
				stop(noCause)
				break
			}
			p := ready.pop()
			running++
			jobs <- job{p: p, id: results[p].ID}
		}
		if running == 0 {
			break
		}
		select {
		case o := <-done:
			running--
			r := &results[o.p]
			pv, isPanic := o.err.(*panicked)
			switch {
			case isPanic:
				r.Status, r.Err, cause[o.p] = Failed, pv, o.p
				if firstPan == nil {
					firstPan, panicID = pv, r.ID
				}
				stop(o.p)
			case o.err != nil:
				r.Status, r.Err, cause[o.p] = Failed, o.err, o.p
				if opts.FailFast {
					stop(o.p)
				}
			default:
				r.Status, cause[o.p] = Succeeded, noCause
			}
			settle(o.p)
		case <-ctxDone:
			ctxDone = nil
			stop(noCause)
		}
	}
	close(jobs)
	for range workers {
		<-finished
	}

	// The walk stopped early: every node not decided yet did not start.
	if stopped {
		for p := range n {
			if results[p].Status != 0 {
				continue
			}
			if c, blocked := skipCause(p); blocked {
				skip(p, c)
			} else {
				skip(p, stopCause)
			}
		}
	}
	if firstPan != nil {
		panic(fmt.Sprintf("dag: panic in node %q: %v\n\n%s", panicID, firstPan.value, firstPan.stack))
	}
	return results, nil
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
