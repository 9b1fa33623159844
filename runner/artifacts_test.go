package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/internal/testtree"
)

// TestWriteJSONConcurrent: runs sharing target/ write run_results.json and
// manifest.json at once; none fails (a shared "path.tmp" made ~1 run in 60
// exit 1 after every unit succeeded), the file is always one whole write,
// and no temporary file is left.
func TestWriteJSONConcurrent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "target", "run_results.json")
	const writers, writes = 8, 40
	var wg sync.WaitGroup
	errs := make(chan error, writers*writes)
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for k := 0; k < writes; k++ {
				if err := writeJSON(path, map[string]int{"writer": g, "write": k}); err != nil {
					errs <- err
				}
				b, err := os.ReadFile(path)
				var v map[string]int
				if err == nil {
					err = json.Unmarshal(b, &v)
				}
				if err != nil {
					errs <- err
				}
			}
		}(g)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	left, _ := os.ReadDir(filepath.Dir(path))
	if len(left) != 1 {
		t.Errorf("target/ holds %d files after the writes, want only run_results.json", len(left))
	}
}

// TestCompiledIndex: WriteCompiled keeps each file's hash, size and time
// in the manifest and does not read back a file they still describe; a
// file changed since (another time) or gone is written again, and a file
// written within the racy window is not recorded.
func TestCompiledIndex(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml":   "name = \"ix\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/a.sql":   "SELECT 1 AS x",
		"models/b.sql":   "SELECT x FROM {{ ref(\"a\") }}",
		"models/c/c.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT x FROM {{ ref(\"b\") }}",
	})
	pl, err := compiler.Compile(loadProject(t, dir), compiler.Options{Models: true, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	ad, _ := adapters.Lookup(pl.Engine)
	file := func(m string) string { return filepath.Join(dir, "target", "compiled", m, m+".sql") }
	age := func() { // every file an hour old: out of the racy window
		for _, m := range []string{"a", "b", "c"} {
			old := time.Now().Add(-time.Hour)
			if err := os.Chtimes(file(m), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func() map[string]compiledEntry {
		if err := WriteCompiled(dir, pl, ad.Dialect); err != nil {
			t.Fatal(err)
		}
		return readCompiledIndex(dir)
	}
	if ix := write(); len(ix) != 0 {
		t.Errorf("files written just now are indexed: %v", ix)
	}
	want, _ := os.ReadFile(file("a"))
	age()
	if ix := write(); len(ix) != 3 {
		t.Fatalf("index %v, want the 3 files", ix)
	}
	// Same size, same time, other text: only a read would see it, and the
	// index says none is needed — proof the file is not read back.
	st, _ := os.Stat(file("a"))
	forged := []byte(strings.Repeat("x", len(want)))
	if err := os.WriteFile(file("a"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(file("a"), st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	write()
	if got, _ := os.ReadFile(file("a")); string(got) != string(forged) {
		t.Fatal("a file the index describes was read back and rewritten")
	}
	// The same edit with a new time, and a deleted file: both written again.
	if err := os.WriteFile(file("a"), forged, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(file("b")); err != nil {
		t.Fatal(err)
	}
	write()
	if got, _ := os.ReadFile(file("a")); string(got) != string(want) {
		t.Errorf("a file changed since the index was not rewritten:\n%s", got)
	}
	if _, err := os.Stat(file("b")); err != nil {
		t.Errorf("a deleted file was not written again: %v", err)
	}
}
