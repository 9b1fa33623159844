package project

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/synth"
)

// later is a load start an hour ahead: every file is older than the racy
// window, so unchanged files are trusted by their stat.
func later() time.Time { return time.Now().Add(time.Hour) }

func sqlFiles(t *testing.T, dir string) []string {
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

// sameSizeEdit changes one byte of the file's body (not its header),
// keeping its size, and puts its modification time back.
func sameSizeEdit(t *testing.T, path string, round int) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	i := bytes.LastIndex(b, []byte("SELECT"))
	if i < 0 {
		t.Fatalf("%s has no SELECT", path)
	}
	copy(b[i:], []byte{"sS"[round%2], 'E', 'L', 'E', 'C', 'T'})
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// TestLoadCacheEqualsCold: after each of a random sequence of edits (a
// body, a header, a same-size edit with the old modification time, a
// touch without change, a model added or deleted, project.toml), a load
// through the cache gives exactly the project a load without it gives,
// and reads no more than the files whose stat changed.
func TestLoadCacheEqualsCold(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Write(dir, 150, 3); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "target")
	rng := rand.New(rand.NewPCG(18, 1))
	hits := 0
	for round := 0; round < 24; round++ {
		files := sqlFiles(t, dir)
		f := files[rng.IntN(len(files))]
		what, changed := "", 1
		switch k := rng.IntN(7); {
		case round == 0:
			what, changed = "nothing (first load)", len(files)
		case k == 0:
			what = "a body: " + f
			b, _ := os.ReadFile(f)
			_ = os.WriteFile(f, append(b, fmt.Sprintf("\n-- round %d\n", round)...), 0o644)
		case k == 1:
			what = "a header: " + f
			b, _ := os.ReadFile(f)
			_ = os.WriteFile(f, append([]byte(fmt.Sprintf("/* idemc\ntags = [\"r%d\"]\n*/\n", round)), b...), 0o644)
		case k == 2:
			what = "a same-size edit, modification time kept: " + f
			sameSizeEdit(t, f, round)
		case k == 3:
			what = "a touch without change: " + f
			now := time.Now()
			_ = os.Chtimes(f, now, now)
		case k == 4:
			what, changed = "a model deleted: "+f, 0
			_ = os.Remove(f)
		case k == 5:
			what = "a model added"
			_ = os.WriteFile(filepath.Join(dir, "models", fmt.Sprintf("added_%d.sql", round)), []byte("SELECT 1 AS x\n"), 0o644)
		default:
			what, changed = "project.toml", len(files)
			b, _ := os.ReadFile(filepath.Join(dir, FileName))
			_ = os.WriteFile(filepath.Join(dir, FileName), append(b, fmt.Sprintf("\n# round %d\n", round)...), 0o644)
		}
		warm, k, werr := loadWith(dir, cache, later())
		cold, cerr := Load(dir)
		if fmt.Sprint(werr) != fmt.Sprint(cerr) {
			t.Fatalf("round %d, after %s: errors differ: cached %v, cold %v", round, what, werr, cerr)
		}
		if !reflect.DeepEqual(warm, cold) {
			t.Fatalf("round %d, after %s: the cached load differs from a cold one", round, what)
		}
		if k.reads > changed {
			t.Errorf("round %d, after %s: %d files read, want at most %d", round, what, k.reads, changed)
		}
		hits += len(warm.Models) - k.reads
	}
	if hits == 0 {
		t.Fatal("no load used the cache: the comparison proves nothing")
	}
}

// TestLoadCacheRacy: a file rewritten with the same size within the file
// system's timestamp granularity of the load that cached it has the same
// stat; the cache must not trust that stat (git's racy-index rule), so
// the next load reads the new text.
func TestLoadCacheRacy(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "models"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(dir, FileName), "name = \"r\"\n")
	path := filepath.Join(dir, "models", "m.sql")
	cache := filepath.Join(dir, "target")
	for try := 0; ; try++ {
		write(path, "SELECT 1 AS a\n")
		st0, _ := modelFileStat(nil, modelFile{rel: "models/m.sql", full: path})
		if _, _, err := loadWith(dir, cache, time.Now()); err != nil {
			t.Fatal(err)
		}
		write(path, "SELECT 2 AS a\n")
		st1, _ := modelFileStat(nil, modelFile{rel: "models/m.sql", full: path})
		if statOf(st0) != statOf(st1) {
			if try == 50 {
				t.Skip("every rewrite changed the file's stat: this file system cannot show the race")
			}
			continue // the clock ticked between the writes: try again
		}
		p, _, err := loadWith(dir, cache, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Models[0].Body; got != "SELECT 2 AS a\n" {
			t.Fatalf("the load after a same-stat rewrite gave %q: the stale cache entry was trusted", got)
		}
		return
	}
}

// TestLoadCacheNotTrustedWhenRacy: a file recorded within the racy window
// is read (and compared by hash) on the next load even though its stat is
// unchanged; once recorded as old enough it is not.
func TestLoadCacheNotTrustedWhenRacy(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Write(dir, 20, 1); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, "target")
	n := len(sqlFiles(t, dir))
	for i, c := range []struct {
		start       time.Time
		reads, pars int
	}{
		{time.Now(), n, n}, // first load: every file parsed, recorded as racy
		{time.Now(), n, 0}, // still racy: read and hashed, not parsed
		{later(), n, 0},    // racy entries read once more, recorded as old
		{later(), 0, 0},    // trusted by stat
		{time.Now(), 0, 0}, // entries recorded as old stay trusted
	} {
		_, k, err := loadWith(dir, cache, c.start)
		if err != nil {
			t.Fatal(err)
		}
		if k.reads != c.reads || k.parses != c.pars {
			t.Errorf("load %d: %d files read and %d parsed, want %d and %d", i, k.reads, k.parses, c.reads, c.pars)
		}
	}
}

func TestCacheable(t *testing.T) {
	local := time.Date(2026, 7, 1, 0, 0, 0, 0, time.FixedZone("X", 3600))
	deep := any("x")
	for range 70 {
		deep = []any{deep}
	}
	for _, c := range []struct {
		m    Model
		want bool
	}{
		{Model{Config: ModelConfig{Tags: StringList{}}}, true},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{}}}, true},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{"unique": {Value: []any{"a", int64(1), 1.5, true, nil}}}}}, true},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {Value: map[string]any{"a": []any{}}}}}}, true},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {Value: local}}}}, false},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {Value: []any{map[string]any{"d": local}}}}}}, false},
		{Model{Config: ModelConfig{Drift: map[string]CheckSpec{"x": {Value: 1}}}}, false},
		{Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {Value: deep}}}}, false},
		{Model{Settled: Settled{FirstPartition: time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)}}, true},
		{Model{Settled: Settled{FirstPartition: local}}, false},
	} {
		if got := cacheable(&c.m); got != c.want {
			t.Errorf("cacheable(%+v) = %v, want %v", c.m, got, c.want)
		}
		if c.want {
			if got := roundTrip(t, &c.m); !reflect.DeepEqual(got, &c.m) {
				t.Errorf("cacheable, but the codec gives back %+v for %+v", got, c.m)
			}
		}
	}
}
