package gctune

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestPercent(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		name                string
		live, roots, target uint64
		want                int
	}{
		{"nothing live yet: the runtime's floor at the target", 0, 0, 112 * mb, 2800},
		{"a few kilobytes", 4 << 10, 0, 112 * mb, 2800},
		{"a target under the runtime's floor", 0, 0, 2 * mb, DefaultPercent},
		{"small heap: grow to the target", 10 * mb, 2 * mb, 112 * mb, 850},
		{"roots count in the goal", 10 * mb, 10 * mb, 112 * mb, 510},
		{"half the target: the default", 56 * mb, 0, 112 * mb, DefaultPercent},
		{"just over half: never below the default", 60 * mb, 0, 112 * mb, DefaultPercent},
		{"past the target", 200 * mb, 1 * mb, 112 * mb, DefaultPercent},
		{"at the target", 112 * mb, 0, 112 * mb, DefaultPercent},
	} {
		if got := Percent(tc.live, tc.roots, tc.target); got != tc.want {
			t.Errorf("%s: Percent(%d, %d, %d) = %d, want %d", tc.name, tc.live, tc.roots, tc.target, got, tc.want)
		}
	}
}

func TestLimit(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, limit uint64
		want        int64
	}{
		{0, 0, math.MaxInt64},
		{10 * mb, 0, math.MaxInt64},
		{0, 210 * mb, 210 * mb},
		{10 * mb, 210 * mb, 210 * mb},
		{104 * mb, 210 * mb, 210 * mb},
		{105 * mb, 210 * mb, math.MaxInt64},
		{300 * mb, 210 * mb, math.MaxInt64},
	} {
		if got := Limit(tc.live, tc.limit); got != tc.want {
			t.Errorf("Limit(%d, %d) = %d, want %d", tc.live, tc.limit, got, tc.want)
		}
	}
}

// memoryLimit reads the runtime's memory limit.
func memoryLimit() int64 { return debug.SetMemoryLimit(-1) }

// current reads the collector's percentage. Through runtime/metrics, not
// debug.SetGCPercent and back: a cleanup's retune between the two would be
// undone.
func current() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// waitFor collects and waits until ok holds for the percentage and the
// memory limit, which a cleanup sets after the cycle. Both are checked
// together: a cycle that ran while the heap was half built can leave a
// percentage that already looks final next to the earlier limit.
func waitFor(t *testing.T, what string, ok func(p int, l int64) bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		if p, l := current(), memoryLimit(); ok(p, l) {
			return
		} else if time.Now().After(deadline) {
			t.Fatalf("%s: percentage still %d, memory limit %d", what, p, l)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestStartFollowsTheLiveHeap(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	const target, limit = 64 << 20, 128 << 20
	stop := Start(target, limit)
	defer stop()
	waitFor(t, "small heap", func(p int, l int64) bool { return p > 2*DefaultPercent && l == limit })

	ballast := make([][]byte, 0, 96)
	for range 96 { // 96 MiB live, past the target
		ballast = append(ballast, make([]byte, 1<<20))
	}
	waitFor(t, "heap past the target", func(p int, l int64) bool {
		return p == DefaultPercent && l == math.MaxInt64
	})
	runtime.KeepAlive(ballast)
	ballast = nil

	waitFor(t, "heap small again", func(p int, l int64) bool { return p > 2*DefaultPercent && l == limit })
	stop()
	if p, l := current(), memoryLimit(); p != DefaultPercent || l != math.MaxInt64 {
		t.Fatalf("after stop: percentage %d, memory limit %d; want the defaults", p, l)
	}
	debug.SetGCPercent(150)
	defer debug.SetGCPercent(DefaultPercent)
	for range 3 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := current(); p != 150 {
		t.Fatalf("a stopped tuner changed the percentage to %d", p)
	}
}

func TestStartLeavesTheUsersSetting(t *testing.T) {
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv("GOGC", "")
			t.Setenv("GOMEMLIMIT", "")
			t.Setenv(env, "100")
			stop := Start(64<<20, 128<<20)
			defer stop()
			for range 3 {
				runtime.GC()
				time.Sleep(10 * time.Millisecond)
			}
			if p, l := current(), memoryLimit(); p != DefaultPercent || l != math.MaxInt64 {
				t.Fatalf("with %s set the tuner set the percentage to %d, the memory limit to %d", env, p, l)
			}
		})
	}
}
