package runner

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/plan"
)

// TestManifestKept: a compile whose graph did not change leaves
// manifest.json as it is once the index recorded it (no encoding, no
// write), and one whose graph changed, or whose manifest someone changed
// or removed, writes it again with the text a fresh write gives.
func TestManifestKept(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml": "name = \"mk\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/a.sql": "SELECT 1 AS x",
		"models/b.sql": "SELECT x FROM {{ ref(\"a\") }}",
	})
	compile := func() *plan.Plan {
		pl, err := compiler.Compile(loadProject(t, dir), compiler.Options{Models: true, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		return pl
	}
	pl := compile()
	ad, _ := adapters.Lookup(pl.Engine)
	path := filepath.Join(dir, "target", manifestFile)
	write := func(pl *plan.Plan) manifestEntry {
		t.Helper()
		if err := WriteCompiled(dir, pl, ad.Dialect); err != nil {
			t.Fatal(err)
		}
		want, err := manifestJSON(pl, ad.Dialect)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || string(got) != string(want) {
			t.Fatalf("manifest.json:\n%s\nwant\n%s (%v)", got, want, err)
		}
		_, _, e := readCompiledIndexes(dir)
		return e
	}
	inodeOf := func(path string) uint64 {
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Ino
	}
	inode := func() uint64 { return inodeOf(path) }
	index := filepath.Join(dir, "target", compiledIndexFile)
	age := func() {
		old := time.Now().Add(-time.Hour)
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}

	if e := write(pl); e.Key == "" || e.MTime != 0 {
		t.Fatalf("a manifest written just now: entry %+v, want its key and no time", e)
	}
	age()
	first := inode()
	if e := write(pl); e.MTime == 0 {
		t.Fatalf("an old manifest with the same text: entry %+v, want its time recorded", e)
	}
	if inode() != first {
		t.Error("a manifest holding the text was written again (compared, it needed no write)")
	}
	indexBefore := inodeOf(index)
	e := write(pl)
	if inode() != first {
		t.Error("a recorded manifest of an unchanged graph was written again")
	}
	if inodeOf(index) != indexBefore {
		t.Error("an index that would say the same was written again")
	}

	// The graph changes: written again.
	if err := os.WriteFile(filepath.Join(dir, "models", "c.sql"), []byte("SELECT 2 AS y"), 0o644); err != nil {
		t.Fatal(err)
	}
	pl2 := compile()
	if e2 := write(pl2); e2.Key == e.Key {
		t.Error("another graph, the same key")
	}
	if inode() == first {
		t.Error("a changed graph's manifest was not written")
	}

	// Someone else changes or removes the file: written again.
	age()
	write(pl2)
	write(pl2) // recorded now
	if err := os.WriteFile(path, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(pl2)
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	write(pl2)
}
