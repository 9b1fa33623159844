package compiler_test

// BenchmarkCompile measures what `idemc compile --partition 2026-07-01` does
// before it writes files: project.Load (read and split every model, decode its
// TOML header) and compiler.Compile (render with gonja, analyse with the TiDB
// parser, build the graph, select, plan one unit per model with the engine's
// SQL) on a synthetic project (internal/synth) of 1k, 10k and 100k models.
//
// Metrics besides ns/op, B/op and allocs/op:
//
//	ns/model   ns/op divided by the number of models
//	peak-MiB   the process's peak resident set during the timed loop (Linux;
//	           reset before the loop through /proc/self/clear_refs)
//
// The projects are generated once into os.TempDir()/idemc-bench-v<V>-<n> and
// reused by later runs. The 100k size runs only when -bench names it:
//
//	go test ./compiler -run '^$' -bench 'Compile/10k$' -benchtime 3x
//	go test ./compiler -run '^$' -bench 'Compile/100k' -benchtime 1x
//
// BenchmarkLoad times project.Load alone, so Compile's share is the difference.

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
)

var benchSizes = []struct {
	name     string
	n        int
	explicit bool // run only when -bench names it
}{
	{"1k", 1000, false},
	{"10k", 10000, false},
	{"100k", 100000, true},
}

var benchDirs sync.Map // n -> dir

// benchProject returns the folder of a generated project of n models,
// writing it on first use (and whenever the generator's Version changes).
func benchProject(b *testing.B, n int) string {
	if d, ok := benchDirs.Load(n); ok {
		return d.(string)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("idemc-bench-v%d-%d", synth.Version, n))
	stamp := filepath.Join(dir, ".complete")
	if _, err := os.Stat(stamp); err != nil {
		start := time.Now()
		if err := synth.Write(dir, n, 1); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(stamp, nil, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %d models into %s in %v", n, dir, time.Since(start).Round(time.Millisecond))
	}
	benchDirs.Store(n, dir)
	return dir
}

// named reports whether the -bench pattern names the size explicitly.
func named(size string) bool {
	f := flag.Lookup("test.bench")
	return f != nil && strings.Contains(f.Value.String(), size)
}

var benchAsOf = time.Date(2026, 7, 3, 12, 0, 0, 0, time.UTC)

func BenchmarkCompile(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			if s.explicit && !named(s.name) {
				b.Skipf("%s runs only when -bench names it: -bench 'Compile/%s'", s.name, s.name)
			}
			dir := benchProject(b, s.n)
			opts := compiler.Options{Partition: synth.Partition, AsOf: benchAsOf, Models: true}
			run := func() {
				p, err := project.Load(dir)
				if err != nil {
					b.Fatal(err)
				}
				pl, err := compiler.Compile(p, opts)
				if err != nil {
					b.Fatal(err)
				}
				if len(pl.Units) == 0 || len(pl.Findings) > 0 {
					b.Fatalf("%d units, %d findings", len(pl.Units), len(pl.Findings))
				}
			}
			measure(b, s.n, run)
		})
	}
	b.Run("fanin-10k", benchFanIn)
}

// benchFanIn is BenchmarkCompile's wide fan-in: 9,900 leaf views, 99
// tables reading 100 leaves each and one table reading the 99, compiled
// before the first build (every model planned).
func benchFanIn(b *testing.B) {
	dir := fanInProject(b, 9900, 99)
	opts := compiler.Options{Models: true, Select: []string{"top"}, State: nothingExists{}, AsOf: benchAsOf}
	measure(b, 10000, func() {
		p, err := project.Load(dir)
		if err != nil {
			b.Fatal(err)
		}
		pl, err := compiler.Compile(p, opts)
		if err != nil {
			b.Fatal(err)
		}
		if len(pl.Units) != 10000 {
			b.Fatalf("%d units, want 10000", len(pl.Units))
		}
	})
}

func BenchmarkLoad(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			if s.explicit && !named(s.name) {
				b.Skipf("%s runs only when -bench names it", s.name)
			}
			dir := benchProject(b, s.n)
			measure(b, s.n, func() {
				if _, err := project.Load(dir); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// BenchmarkLoadCached is a warm load: no model file changed since the
// load cache was written, so decoding the cache is most of it.
func BenchmarkLoadCached(b *testing.B) {
	for _, s := range benchSizes {
		b.Run(s.name, func(b *testing.B) {
			if s.explicit && !named(s.name) {
				b.Skipf("%s runs only when -bench names it", s.name)
			}
			dir, cache := benchProject(b, s.n), b.TempDir()
			if _, err := project.LoadCached(dir, cache); err != nil { // fills the cache
				b.Fatal(err)
			}
			measure(b, s.n, func() {
				if _, err := project.LoadCached(dir, cache); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure runs fn b.N times and reports ns/model and the peak RSS.
func measure(b *testing.B, models int, fn func()) {
	b.ReportAllocs()
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	b.ResetTimer()
	for range b.N {
		fn()
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(models), "ns/model")
	if kb := peakRSSKiB(); kb > 0 {
		b.ReportMetric(float64(kb)/1024, "peak-MiB")
	}
}

// resetPeakRSS resets the kernel's high-water mark of the resident set
// (Linux ≥ 4.0); elsewhere it does nothing.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSSKiB reads VmHWM from /proc/self/status; 0 when unknown.
func peakRSSKiB() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
