// Package gctune sets the collector's percentage (GOGC) after every cycle
// so that a process whose live heap is small lets the heap grow to a fixed
// size before it collects again, and one whose live heap is large collects
// as the default GOGC=100 does.
//
// Why: a compile's live heap grows from nothing to ~90 MB at 10,000 models
// while it allocates ~600 MB; at GOGC=100 that is ~23 cycles, most of them
// while the heap is a few MB, each marking what is live. A fixed higher
// GOGC would cut them but also raise the peak of a 100,000-model compile
// by a gigabyte, and the runtime's memory limit only ever collects more
// often, never less. This is the policy known as a "GC tuner" (Uber,
// ByteDance's gopkg): about fifty lines, so written here rather than a
// dependency.
package gctune

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// DefaultPercent is the runtime's own GOGC, kept once the live heap is so
// large that the target would collect more often than it.
const DefaultPercent = 100

// minHeap is the runtime's smallest heap goal at GOGC=100; it scales with
// GOGC (4 MiB × GOGC/100) and is a floor under every goal, so a
// percentage above target×100/minHeap would set the goal past the target
// however little is live.
const minHeap = 4 << 20

// Percent is the GOGC under which the runtime's next heap goal,
// live + (live + roots) × GOGC/100, is target: never below the default,
// never so high that the runtime's floor (minHeap × GOGC/100) passes the
// target. roots is the scannable stacks and globals.
func Percent(live, roots, target uint64) int {
	if live >= target {
		return DefaultPercent
	}
	ceiling := max(target*100/minHeap, DefaultPercent)
	base := live + roots
	if base == 0 {
		return int(ceiling)
	}
	p := (target - live) * 100 / base
	return int(min(max(p, DefaultPercent), ceiling))
}

// Limit is the runtime's memory limit for a live heap of live bytes: limit
// while the default's heap, twice the live one, fits in it, and none
// (math.MaxInt64) once it does not — past that the limit would collect
// again and again and no longer bound anything. Under the limit the
// runtime also hands freed pages back to the system sooner: the larger
// heaps the percentage allows early on do not stay resident.
func Limit(live, limit uint64) int64 {
	if limit == 0 || live >= limit/2 {
		return math.MaxInt64
	}
	return int64(min(limit, math.MaxInt64))
}

// Start tunes the collector for the rest of the process, or until the
// returned stop, which puts back the defaults: a percentage for a heap of
// target bytes, and a memory limit of limit bytes while the live heap is
// under half of it (0: none). It does nothing when GOGC or GOMEMLIMIT is
// set in the environment: the user's setting wins.
func Start(target, limit uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &tuner{target: target, limit: limit, samples: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"},
	}}
	t.tune()
	t.arm()
	return func() {
		t.mu.Lock()
		defer t.mu.Unlock()
		t.stopped = true
		debug.SetGCPercent(DefaultPercent)
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

type tuner struct {
	target  uint64
	limit   uint64
	mu      sync.Mutex // a retune and stop, one at a time
	samples []metrics.Sample
	stopped bool
}

// sentinel holds a pointer so it is never placed in a tiny-allocation
// block, whose cleanups may run late or never.
type sentinel struct{ _ *int }

// arm registers a cleanup that runs once the next cycle has found the
// sentinel unreachable: it retunes and arms again.
func (t *tuner) arm() {
	runtime.AddCleanup(&sentinel{}, func(t *tuner) {
		if t.tune() {
			t.arm()
		}
	}, t)
}

// tune sets the percentage for the live heap now; false once stopped.
func (t *tuner) tune() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	metrics.Read(t.samples)
	var v [3]uint64
	for i, s := range t.samples {
		if s.Value.Kind() == metrics.KindUint64 {
			v[i] = s.Value.Uint64()
		}
	}
	debug.SetGCPercent(Percent(v[0], v[1]+v[2], t.target))
	debug.SetMemoryLimit(Limit(v[0], t.limit))
	return true
}
