package runner

import (
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/synth"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
)

// TestCompiledReuseEqualsCold: after each of a random sequence of edits
// (synth.Edit's, and unit files rewritten as a build rewrites them), a
// compile that reuses target/compiled (a unit whose key the index records,
// its file unchanged, keeps the file and is not given a recipe) leaves
// exactly the files, and reports exactly the steps, of a compile into an
// empty target/. And it reuses: otherwise the comparison proves nothing.
func TestCompiledReuseEqualsCold(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Write(dir, 120, 7); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(18, 3))
	reused, rebuilt := 0, 0
	for round := 0; round < 30; round++ {
		before := t.TempDir()
		testtree.Copy(t, dir, before, "target")
		what, err := synth.Edit(dir, rng, round)
		if err != nil {
			t.Fatal(err)
		}
		if round%4 == 3 {
			f := rewriteOneUnitFile(t, dir, rng)
			what += "; and " + f + " rewritten, as a build rewrites it"
		}
		warm, counts, n := compileReusing(t, dir)
		cold, coldCounts, _ := compileInto(t, dir, t.TempDir())
		if warm == nil || cold == nil {
			if counts != coldCounts {
				t.Fatalf("round %d, after %s: the compile fails otherwise than a cold one:\n%s\n%s", round, what, counts, coldCounts)
			}
			// Undone, so that the next rounds compile (a broken project
			// would stay broken).
			restoreProject(t, dir, before)
			continue
		}
		if d := firstDifference(cold, warm); d != "" {
			t.Fatalf("round %d, after %s: target/compiled differs from a cold compile's: %s", round, what, d)
		}
		if counts != coldCounts {
			t.Fatalf("round %d, after %s: the step counts differ from a cold compile's:\n%s", round, what, firstDifference(map[string]string{"": coldCounts}, map[string]string{"": counts}))
		}
		reused += n
		rebuilt += strings.Count(counts, "\n") - n
		// Out of the racy window, so that the next compile records them.
		ageFiles(t, filepath.Join(dir, "target", "compiled"))
	}
	if reused == 0 || rebuilt == 0 {
		t.Fatalf("%d units reused, %d built: the comparison proves nothing", reused, rebuilt)
	}
}

// compileReusing compiles dir as idemc compile does: its caches, its
// target/compiled's index asked before building each recipe, and each
// recipe filed as it is made.
func compileReusing(t *testing.T, dir string) (files map[string]string, counts string, reused int) {
	t.Helper()
	idx := OpenCompiled(dir)
	opts := reuseOpts(filepath.Join(dir, "target"))
	var hits atomic.Int64 // Unit.Reused counts filed units too
	opts.Reuse = func(u *plan.Unit) int {
		n := idx.Reuse(u)
		if n > 0 {
			hits.Add(1)
		}
		return n
	}
	opts.Filed = idx.Filed
	compiled := filepath.Join(dir, "target", "compiled")
	before := readTreeIfAny(t, compiled)
	files, counts, _ = compileWith(t, dir, opts, idx)
	reused = int(hits.Load())
	if files == nil { // a failed compile writes nothing
		if d := firstDifference(before, readTreeIfAny(t, compiled)); d != "" || len(before) != len(readTreeIfAny(t, compiled)) {
			t.Fatalf("a failed compile changed target/compiled: %s", d)
		}
	}
	return files, counts, reused
}

// compileInto compiles dir's project into a copy without target/: no cache,
// no index.
func compileInto(t *testing.T, dir, cold string) (map[string]string, string, int) {
	t.Helper()
	testtree.Copy(t, dir, cold, "target")
	return compileWith(t, cold, reuseOpts(""), OpenCompiled(cold))
}

func reuseOpts(cache string) compiler.Options {
	return compiler.Options{Models: true, Partition: "2026-07-01", AsOf: time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC), Cache: cache}
}

func compileWith(t *testing.T, dir string, opts compiler.Options, idx *CompiledIndex) (map[string]string, string, int) {
	t.Helper()
	p, err := project.LoadCached(dir, opts.Cache)
	if err != nil {
		return nil, "load: " + err.Error(), 0
	}
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		// An edit that breaks the project (a model deleted that another
		// reads): the same error, and no write.
		return nil, "compile: " + strings.ReplaceAll(err.Error(), dir, "<dir>"), 0
	}
	ad, _ := adapters.Lookup(pl.Engine)
	if err := idx.Write(pl, ad.Dialect); err != nil {
		t.Fatal(err)
	}
	var counts strings.Builder
	reused := 0
	for _, u := range pl.Units {
		fmt.Fprintf(&counts, "%s %d\n", u.ID, u.StepCount())
		if u.Reused > 0 {
			reused++
		}
	}
	return readTree(t, filepath.Join(dir, "target", "compiled")), counts.String(), reused
}

// readTreeIfAny is readTree, empty when root does not exist.
func readTreeIfAny(t *testing.T, root string) map[string]string {
	t.Helper()
	if _, err := os.Stat(root); os.IsNotExist(err) {
		return map[string]string{}
	}
	return readTree(t, root)
}

func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// restoreProject puts back dir's project as testtree.Copy saved it in
// saved, keeping target/.
func restoreProject(t *testing.T, dir, saved string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "target" {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				t.Fatal(err)
			}
		}
	}
	testtree.Copy(t, saved, dir, "target")
}

// rewriteOneUnitFile rewrites a random unit file with other text (a build
// writes the recipe it ran), as its relative path.
func rewriteOneUnitFile(t *testing.T, dir string, rng *rand.Rand) string {
	t.Helper()
	root := filepath.Join(dir, "target", "compiled")
	var files []string
	for f := range readTree(t, root) {
		files = append(files, f)
	}
	if len(files) == 0 {
		t.Fatal("no unit files to rewrite")
	}
	sort.Strings(files)
	f := files[rng.IntN(len(files))]
	if err := os.WriteFile(filepath.Join(root, f), []byte("-- what a build ran\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// ageFiles moves the files written within the racy window a minute back,
// as if the compile were that long ago (the others keep the time the index
// records).
func ageFiles(t *testing.T, root string) {
	t.Helper()
	now := time.Now()
	old := now.Add(-time.Minute)
	for f := range readTree(t, root) {
		p := filepath.Join(root, f)
		st, err := os.Stat(p)
		if err == nil && now.Sub(st.ModTime()) < 2*racyWindow {
			err = os.Chtimes(p, old, old)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// firstDifference names the first file whose text differs, "" for none.
func firstDifference(want, got map[string]string) string {
	var names []string
	for f := range want {
		names = append(names, f)
	}
	for f := range got {
		if _, ok := want[f]; !ok {
			names = append(names, f)
		}
	}
	sort.Strings(names)
	for _, f := range names {
		w, inWant := want[f]
		g, inGot := got[f]
		switch {
		case !inGot:
			return f + " is missing"
		case !inWant:
			return f + " should not be there"
		case w != g:
			return fmt.Sprintf("%s:\n--- want\n%s\n--- got\n%s", f, w, g)
		}
	}
	return ""
}
