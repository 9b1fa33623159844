package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/internal/testtree"
)

// TestCompiledDirs: WriteCompiled records each model folder's time in the
// manifest once the folder and its files are older than the racy window,
// and then does not list a folder whose time is unchanged; a file added
// to a folder changes its time, so the folder is listed and the file
// removed.
func TestCompiledDirs(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml": "name = \"cd\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/a.sql": "SELECT 1 AS x",
		"models/b.sql": "SELECT x FROM {{ ref(\"a\") }}",
	})
	pl, err := compiler.Compile(loadProject(t, dir), compiler.Options{Models: true, AsOf: time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	ad, _ := adapters.Lookup(pl.Engine)
	compiled := filepath.Join(dir, "target", "compiled")
	old := time.Now().Add(-time.Hour)
	age := func(paths ...string) {
		for _, p := range paths {
			if err := os.Chtimes(filepath.Join(compiled, p), old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
	write := func() map[string]compiledDir {
		if err := WriteCompiled(dir, pl, ad.Dialect); err != nil {
			t.Fatal(err)
		}
		_, dirs, _ := readCompiledIndexes(dir)
		return dirs
	}
	if dirs := write(); len(dirs) != 0 {
		t.Errorf("folders written just now are recorded: %v", dirs)
	}
	age("a/a.sql", "b/b.sql")
	if dirs := write(); len(dirs) != 0 {
		t.Errorf("folders changed just now are recorded: %v", dirs)
	}
	age("a", "b")
	if dirs := write(); len(dirs) != 2 {
		t.Fatalf("recorded folders %v, want a and b", dirs)
	}
	stray := filepath.Join(compiled, "a", "old.sql")
	if err := os.WriteFile(stray, []byte("-- an old partition"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The folder's time put back: only a listing would see the file, and
	// the record says none is needed — proof the folder is not listed.
	age("a")
	write()
	if _, err := os.Stat(stray); err != nil {
		t.Fatal("a folder whose time is the recorded one was listed")
	}
	// The same file with the folder's new time: listed, the file removed.
	if err := os.Remove(stray); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(stray, []byte("-- an old partition"), 0o644); err != nil {
		t.Fatal(err)
	}
	if dirs := write(); len(dirs) != 1 {
		t.Errorf("recorded folders %v after a file was removed from a, want b only", dirs)
	}
	if _, err := os.Stat(stray); err == nil {
		t.Error("a file added to a recorded folder was not removed")
	}
}
