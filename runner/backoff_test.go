package runner

import (
	"testing"
	"time"
)

// TestBackoff: without a budget, maxTxAttempts attempts with the short
// waits; with one, waits double from the first, capped, jittered within
// the upper half of each step, until the budget is spent.
func TestBackoff(t *testing.T) {
	t0 := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	plain := &backoff{start: t0}
	for attempt, want := range map[int]bool{1: true, 3: true, 4: false} {
		if _, again := plain.next(attempt, t0); again != want {
			t.Errorf("no budget, attempt %d: again %v, want %v", attempt, again, want)
		}
	}
	half := func(d time.Duration) time.Duration { return d / 2 } // the lowest jitter
	full := func(d time.Duration) time.Duration { return d }     // the highest
	cases := []struct {
		attempt int
		elapsed time.Duration
		jitter  func(time.Duration) time.Duration
		want    time.Duration
		again   bool
	}{
		{1, 0, full, 500 * time.Millisecond, true},
		{1, 0, half, 250 * time.Millisecond, true},
		{2, time.Second, full, time.Second, true},
		{4, 5 * time.Second, full, 4 * time.Second, true},
		{6, 20 * time.Second, full, maxRetryWait, true}, // capped
		{9, 50 * time.Second, half, maxRetryWait / 2, true},
		{9, 57 * time.Second, full, maxRetryWait, false}, // past the 60 s budget
	}
	for _, c := range cases {
		b := &backoff{budget: time.Minute, first: 500 * time.Millisecond, start: t0, jitter: c.jitter}
		wait, again := b.next(c.attempt, t0.Add(c.elapsed))
		if wait != c.want || again != c.again {
			t.Errorf("attempt %d after %s: wait %s again %v, want %s %v", c.attempt, c.elapsed, wait, again, c.want, c.again)
		}
	}
	b := newBackoff(nil)
	for i := 0; i < 100; i++ {
		if d := b.jitter(time.Second); d < time.Second/2 || d > time.Second {
			t.Fatalf("jitter %s outside [0.5 s, 1 s]", d)
		}
	}
}
