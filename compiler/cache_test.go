package compiler_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
)

// cacheOpts compiles one partition at a fixed time.
func cacheOpts(cache string, w *compiler.Work) compiler.Options {
	return compiler.Options{Models: true, Partition: "2026-07-01", AsOf: time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC), Cache: cache, Work: w}
}

// compileDir loads dir (through the load cache when opts has a cache) and
// compiles it; the text is everything a compile gives a caller: the error,
// or the plan with its SQL, every node and the findings.
func compileDir(t *testing.T, dir string, opts compiler.Options) (string, *compiler.Work) {
	t.Helper()
	p, err := project.LoadCached(dir, opts.Cache)
	if err != nil {
		return "load: " + err.Error(), opts.Work
	}
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return "compile: " + err.Error(), opts.Work
	}
	var b strings.Builder
	b.WriteString(pl.Format(true))
	names := make([]string, 0, len(pl.Nodes))
	for n := range pl.Nodes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		j, err := json.Marshal(pl.Nodes[n]) // follows the checks' pointers
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	fmt.Fprintf(&b, "%#v\n", pl.Findings)
	return b.String(), opts.Work
}

func edit(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func modelFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(dir, "models"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sql") {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestCacheEqualsCold: after each of a random sequence of edits (a
// model's SQL, its header, a macro, a var, the target, a model deleted or
// added, a touch without change, a same-size edit keeping the modification
// time), a load and compile reading the caches give exactly what they give
// without them — the error, or every unit's SQL, node and finding.
func TestCacheEqualsCold(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Write(dir, 120, 7); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "target")
	rng := rand.New(rand.NewPCG(18, 2))
	hits := int64(0)
	for round := 0; round < 18; round++ {
		what, err := synth.Edit(dir, rng, round)
		if err != nil {
			t.Fatal(err)
		}
		w := &compiler.Work{}
		o := cacheOpts(cache, w)
		if round%2 == 1 { // as the commands compile: the cache read while the project loads
			o.CacheAhead = compiler.ReadCacheAhead(cache)
		}
		warm, _ := compileDir(t, dir, o)
		cold, _ := compileDir(t, dir, cacheOpts("", nil))
		if warm != cold {
			t.Fatalf("round %d, after %s: the cached compile differs from a cold one:\n%s", round, what, firstDiff(cold, warm))
		}
		hits += w.Hits.Load()
	}
	if hits == 0 {
		t.Fatal("no compile read the cache: the comparison proves nothing")
	}
}

// TestCacheAhead: a compile takes the entries read ahead for its cache
// folder, once: the file read ahead then removed still gives hits; a
// second compile given the same read-ahead, or one for another folder,
// reads the file itself.
func TestCacheAhead(t *testing.T) {
	const n = 600 // the file's entries in several messages
	dir := t.TempDir()
	if err := synth.Write(dir, n, 5); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "target")
	cold, _ := compileDir(t, dir, cacheOpts(cache, &compiler.Work{})) // writes the cache
	elsewhere := t.TempDir()                                          // the same entries, in another folder
	if b, err := os.ReadFile(filepath.Join(cache, "compile_cache.bin")); err != nil || os.WriteFile(filepath.Join(elsewhere, "compile_cache.bin"), b, 0o644) != nil {
		t.Fatal(err)
	}
	ahead := compiler.ReadCacheAhead(cache)
	other := compiler.ReadCacheAhead(elsewhere)
	compiler.ReadAhead(ahead)
	compiler.ReadAhead(other)
	if err := os.Rename(filepath.Join(cache, "compile_cache.bin"), filepath.Join(cache, "moved.gob")); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name  string
		ahead *compiler.CacheAhead
		hits  bool
	}{
		{"read ahead for another folder", other, false},
		{"read ahead, the file gone since", ahead, true},
		{"the same read-ahead again", ahead, false},
	}
	for _, s := range steps {
		o := cacheOpts(cache, &compiler.Work{})
		o.CacheAhead = s.ahead
		got, w := compileDir(t, dir, o)
		if got != cold {
			t.Fatalf("%s: the compile differs from the first:\n%s", s.name, firstDiff(cold, got))
		}
		if hits := w.Hits.Load(); (hits > 0) != s.hits || s.hits && hits != n {
			t.Errorf("%s: %d models read from the cache, want hits %v (all %d)", s.name, hits, s.hits, n)
		}
		// Each compile writes the cache again: take it away for the next.
		_ = os.Remove(filepath.Join(cache, "compile_cache.bin"))
	}
}

// TestCacheInvalidates: each input of an entry's key makes its models
// render again — one model's file only that model; a macro, a var, --vars,
// the target's settings or another target every model — and nothing
// changed renders nothing.
func TestCacheInvalidates(t *testing.T) {
	const n = 40
	cases := []struct {
		name   string
		change func(t *testing.T, dir string, o *compiler.Options)
		want   int64 // models analysed again
	}{
		{"nothing", func(*testing.T, string, *compiler.Options) {}, 0},
		{"one model", func(t *testing.T, dir string, _ *compiler.Options) {
			f := modelFiles(t, dir)[3]
			b, _ := os.ReadFile(f)
			_ = os.WriteFile(f, append(b, "\n-- edited\n"...), 0o644)
		}, 1},
		{"a macro", func(t *testing.T, dir string, _ *compiler.Options) {
			edit(t, filepath.Join(dir, "macros", "money.sql"), "* 100", "* 1000")
		}, n},
		{"a var", func(t *testing.T, dir string, _ *compiler.Options) {
			edit(t, filepath.Join(dir, "project.toml"), "min_amount    = 0", "min_amount    = 1")
		}, n},
		{"--vars", func(_ *testing.T, _ string, o *compiler.Options) { o.Vars = map[string]any{"source_system": "cli"} }, n},
		{"the target's settings", func(t *testing.T, dir string, _ *compiler.Options) {
			edit(t, filepath.Join(dir, "project.toml"), "path   = \"target/warehouse.duckdb\"", "path   = \"target/other.duckdb\"")
		}, n},
		{"another target", func(t *testing.T, dir string, o *compiler.Options) { o.Target = "pg" }, n},
		{"full refresh", func(_ *testing.T, _ string, o *compiler.Options) { o.FullRefresh = true }, -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("IDEMC_PG_DSN", "postgres://u@127.0.0.1:1/db")
			dir := t.TempDir()
			if err := synth.Write(dir, n, 3); err != nil {
				t.Fatal(err)
			}
			cache := filepath.Join(dir, "target")
			first, _ := compileDir(t, dir, cacheOpts(cache, &compiler.Work{}))
			if strings.HasPrefix(first, "compile:") || strings.HasPrefix(first, "load:") {
				t.Fatal(first)
			}
			o := cacheOpts(cache, &compiler.Work{})
			c.change(t, dir, &o)
			warm, w := compileDir(t, dir, o)
			o.Cache, o.Work = "", nil
			if cold, _ := compileDir(t, dir, o); warm != cold {
				t.Fatalf("the cached compile differs from a cold one:\n%s", firstDiff(cold, warm))
			}
			got := w.Analyses.Load()
			if c.want < 0 { // only the incremental models render again
				if got == 0 || got == n {
					t.Errorf("%d of %d models analysed again, want the incremental ones", got, n)
				}
				return
			}
			if got != c.want || w.Hits.Load() != n-c.want {
				t.Errorf("%d models analysed again and %d read from the cache, want %d and %d", got, w.Hits.Load(), c.want, n-c.want)
			}
		})
	}
}
