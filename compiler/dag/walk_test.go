package dag

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// summary renders results as "id:status[:because]" for compact comparisons.
func summary(rs []Result) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.ID + ":" + r.Status.String()
		if r.SkippedBecause != "" {
			out[i] += ":" + r.SkippedBecause
		}
	}
	return out
}

func TestStatusString(t *testing.T) {
	for s, want := range map[Status]string{Succeeded: "succeeded", Failed: "failed", Skipped: "skipped", 0: "Status(0)"} {
		if s.String() != want {
			t.Errorf("%d.String() = %q, want %q", int(s), s.String(), want)
		}
	}
}

func TestWalkOrdering(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	g := fromEdges(randomDAG(r, 300, 4))
	var mu sync.Mutex
	finished := make(map[string]bool)
	var calls atomic.Int64
	results, err := g.Walk(context.Background(), WalkOptions{Threads: 8}, func(_ context.Context, id string) error {
		calls.Add(1)
		mu.Lock()
		for _, u := range g.Upstream(id) {
			if !finished[u] {
				t.Errorf("%s started before its upstream %s finished", id, u)
			}
		}
		mu.Unlock()
		time.Sleep(time.Duration(rand.IntN(50)) * time.Microsecond)
		mu.Lock()
		finished[id] = true
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != int64(g.Len()) {
		t.Errorf("fn called %d times for %d nodes", calls.Load(), g.Len())
	}
	order, _ := g.TopoOrder()
	for i, res := range results {
		if res.ID != order[i] || res.Status != Succeeded {
			t.Fatalf("results[%d] = %+v, want %s succeeded", i, res, order[i])
		}
	}
}

func TestWalkSingleThreadFollowsTopoOrder(t *testing.T) {
	g := fromEdges(randomDAG(rand.New(rand.NewPCG(5, 6)), 200, 3))
	var got []string
	_, err := g.Walk(context.Background(), WalkOptions{Threads: 1}, func(_ context.Context, id string) error {
		got = append(got, id) // Threads=1: no concurrent calls
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := g.TopoOrder()
	if !slices.Equal(got, want) {
		t.Errorf("call order differs from TopoOrder")
	}
}

func TestWalkMaxConcurrency(t *testing.T) {
	for _, threads := range []int{0, 1, 3, 8} {
		t.Run(fmt.Sprint(threads), func(t *testing.T) {
			g := New()
			for i := range 60 {
				g.Add(fmt.Sprintf("n%02d", i))
			}
			// A few edges so waiting nodes exist while others run.
			for i := 10; i < 60; i += 7 {
				g.Connect(fmt.Sprintf("n%02d", i-10), fmt.Sprintf("n%02d", i))
			}
			var cur, peak atomic.Int64
			_, err := g.Walk(context.Background(), WalkOptions{Threads: threads}, func(context.Context, string) error {
				c := cur.Add(1)
				for {
					p := peak.Load()
					if c <= p || peak.CompareAndSwap(p, c) {
						break
					}
				}
				time.Sleep(200 * time.Microsecond)
				cur.Add(-1)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			limit := int64(max(threads, 1))
			if peak.Load() > limit {
				t.Errorf("peak concurrency %d exceeds Threads %d", peak.Load(), limit)
			}
			t.Logf("Threads=%d peak=%d", threads, peak.Load())
		})
	}
}

func TestWalkSkipPropagation(t *testing.T) {
	// a -> b -> c -> d ; a -> e ; x -> c ; b -> f ; x fails too.
	g := build("a>b", "b>c", "c>d", "a>e", "x>c", "b>f", "y")
	boom := errors.New("boom")
	var mu sync.Mutex
	var called []string
	results, err := g.Walk(context.Background(), WalkOptions{Threads: 4}, func(_ context.Context, id string) error {
		mu.Lock()
		called = append(called, id)
		mu.Unlock()
		if id == "b" || id == "x" {
			return fmt.Errorf("%s: %w", id, boom)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// TopoOrder: a, b, e, f?.. computed: ready {a,x,y} -> a ; {b,e,x,y} -> b ; {e,f,x,y} -> e, f, x, c, d, y
	want := []string{"a:succeeded", "b:failed", "e:succeeded", "f:skipped:b", "x:failed", "c:skipped:b", "d:skipped:b", "y:succeeded"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("results = %q\nwant      %q", got, want)
	}
	slices.Sort(called)
	if want := []string{"a", "b", "e", "x", "y"}; !slices.Equal(called, want) {
		t.Errorf("fn called for %q, want %q", called, want)
	}
	roots := RootCauses(results)
	if len(roots) != 2 || roots[0].ID != "b" || roots[1].ID != "x" || !errors.Is(roots[0].Err, boom) {
		t.Errorf("RootCauses = %+v", roots)
	}
	for _, r := range results {
		if r.Status == Skipped && r.Err != nil {
			t.Errorf("%s: skipped for a failure has Err %v", r.ID, r.Err)
		}
	}
}

func TestWalkFailFast(t *testing.T) {
	// Independent nodes, one thread: after a fails, nothing else starts.
	g := build("a", "b", "c", "a>d", "b>e")
	var called []string
	results, err := g.Walk(context.Background(), WalkOptions{Threads: 1, FailFast: true}, func(_ context.Context, id string) error {
		called = append(called, id)
		if id == "b" {
			return errors.New("b broke")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:succeeded", "b:failed", "c:skipped:b", "d:skipped:b", "e:skipped:b"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("results = %q\nwant      %q", got, want)
	}
	if !slices.Equal(called, []string{"a", "b"}) {
		t.Errorf("called %q", called)
	}
	// Without FailFast, the independent nodes still run.
	results, _ = g.Walk(context.Background(), WalkOptions{Threads: 1}, func(_ context.Context, id string) error {
		if id == "b" {
			return errors.New("b broke")
		}
		return nil
	})
	want = []string{"a:succeeded", "b:failed", "c:succeeded", "d:succeeded", "e:skipped:b"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("without FailFast: results = %q\nwant      %q", got, want)
	}
}

func TestWalkFailFastLetsRunningFinish(t *testing.T) {
	g := build("fail", "slow", "z_later")
	release := make(chan struct{})
	slowStarted := make(chan struct{})
	var slowDone atomic.Bool
	results, err := g.Walk(context.Background(), WalkOptions{Threads: 2, FailFast: true}, func(_ context.Context, id string) error {
		switch id {
		case "fail":
			<-slowStarted
			defer close(release)
			return errors.New("no")
		case "slow":
			close(slowStarted)
			<-release
			slowDone.Store(true)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slowDone.Load() {
		t.Error("Walk returned before the running node finished")
	}
	want := []string{"fail:failed", "slow:succeeded", "z_later:skipped:fail"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("results = %q\nwant      %q", got, want)
	}
}

func TestWalkCancel(t *testing.T) {
	g := build("a>b", "b>c", "x")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var called []string
	results, err := g.Walk(ctx, WalkOptions{Threads: 1}, func(ctx context.Context, id string) error {
		called = append(called, id)
		if id == "a" {
			cancel()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:succeeded", "b:skipped", "c:skipped", "x:skipped"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("results = %q\nwant      %q", got, want)
	}
	for _, r := range results[1:] {
		if !errors.Is(r.Err, context.Canceled) {
			t.Errorf("%s: Err = %v, want context.Canceled", r.ID, r.Err)
		}
	}
	if !slices.Equal(called, []string{"a"}) {
		t.Errorf("called %q", called)
	}
}

func TestWalkCancelWhileRunning(t *testing.T) {
	// The running node sees the cancellation; its error makes it Failed and
	// its downstream node is skipped because of it.
	g := build("a>b")
	ctx, cancel := context.WithCancelCause(context.Background())
	stopNow := errors.New("operator pressed ^C")
	results, err := g.Walk(ctx, WalkOptions{Threads: 2}, func(ctx context.Context, id string) error {
		if id == "b" {
			t.Error("b started after cancellation")
		}
		cancel(stopNow)
		<-ctx.Done()
		return context.Cause(ctx)
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"a:failed", "b:skipped:a"}
	if got := summary(results); !slices.Equal(got, want) {
		t.Errorf("results = %q\nwant      %q", got, want)
	}
	if !errors.Is(results[0].Err, stopNow) {
		t.Errorf("a: Err = %v", results[0].Err)
	}
}

func TestWalkAlreadyCancelled(t *testing.T) {
	g := build("a>b", "c")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	results, err := g.Walk(ctx, WalkOptions{Threads: 4}, func(context.Context, string) error {
		t.Error("fn called on a cancelled context")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if r.Status != Skipped || r.SkippedBecause != "" || !errors.Is(r.Err, context.Canceled) {
			t.Errorf("%+v, want skipped with context.Canceled", r)
		}
	}
}

func TestWalkPanic(t *testing.T) {
	g := build("boom>after", "slow", "slow>tail")
	slowStarted := make(chan struct{})
	var slowDone, afterCalled atomic.Bool
	var recovered any
	func() {
		defer func() { recovered = recover() }()
		_, _ = g.Walk(context.Background(), WalkOptions{Threads: 2}, func(_ context.Context, id string) error {
			switch id {
			case "boom":
				<-slowStarted
				panic("kaboom")
			case "slow":
				close(slowStarted)
				time.Sleep(20 * time.Millisecond)
				slowDone.Store(true)
			default:
				afterCalled.Store(true)
			}
			return nil
		})
	}()
	msg, ok := recovered.(string)
	if !ok {
		t.Fatalf("recovered %T %v, want a string panic", recovered, recovered)
	}
	if !strings.Contains(msg, `"boom"`) || !strings.Contains(msg, "kaboom") {
		t.Errorf("panic message does not name the node and value: %s", msg)
	}
	if !slowDone.Load() {
		t.Error("Walk re-panicked before the running node finished")
	}
	if afterCalled.Load() {
		t.Error("a node started after the panic")
	}
}

func TestWalkCycle(t *testing.T) {
	g := build("a>b", "b>a", "c")
	results, err := g.Walk(context.Background(), WalkOptions{Threads: 2}, func(context.Context, string) error {
		t.Error("fn called on a cyclic graph")
		return nil
	})
	if !errors.Is(err, ErrCycle) || results != nil {
		t.Fatalf("Walk = %v, %v; want a cycle error", results, err)
	}
	if err.Error() != "dependency cycle: a -> b -> a" {
		t.Errorf("err = %q", err)
	}
}

func TestWalkEmpty(t *testing.T) {
	results, err := New().Walk(context.Background(), WalkOptions{}, nil)
	if err != nil || len(results) != 0 {
		t.Fatalf("Walk(empty) = %v, %v", results, err)
	}
}

func BenchmarkWalk(b *testing.B) {
	const n = 1000
	g := benchGraph(n)
	noop := func(context.Context, string) error { return nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := g.Walk(context.Background(), WalkOptions{Threads: 4}, noop); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/node")
}
