package runner

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idemc/idemc/plan"
)

// TestWriteUnitSQL: the writer makes a unit's folder (target/compiled
// too, when missing) and remembers it, so a file in a folder it made is
// written without being looked for; in a folder it did not make, a file
// that already holds the text is left alone (and recorded once its time
// is not racy), another is replaced; no temporary file is left.
func TestWriteUnitSQL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "target", "compiled") // missing
	made := map[string]bool{}
	var buf []byte
	unit := func(model, part string) *plan.Unit { return &plan.Unit{Model: model, Partition: part} }
	read := func(rel string) string {
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	e := compiledEntry{SHA: "x", Size: 3, Key: "k", Steps: 2}

	// A fresh target/compiled: the folders are made and remembered.
	for _, u := range []*plan.Unit{unit("a", ""), unit("d", "2026-07-01"), unit("d", "2026-07-02")} {
		got, err := writeUnitSQL(dir, u, &buf, e, []byte("new"), made)
		if err != nil || got != (compiledEntry{}) {
			t.Fatalf("%s: entry %+v, %v; want none (a file just written is racy)", unitFile(u), got, err)
		}
	}
	if !made[filepath.Join(dir, "a")] || !made[filepath.Join(dir, "d")] || len(made) != 2 {
		t.Fatalf("made %v, want a and d", made)
	}

	// Another writer (the next compile): the folders exist.
	made = map[string]bool{}
	old := time.Now().Add(-time.Hour)
	path := filepath.Join(dir, "a", "a.sql")
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	got, err := writeUnitSQL(dir, unit("a", ""), &buf, e, []byte("new"), made)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(path); !st.ModTime().Equal(old) {
		t.Error("a file holding the text was rewritten")
	}
	if got.MTime != old.UnixNano() || got.Key != "k" {
		t.Errorf("entry %+v, want the file's time recorded", got)
	}
	if _, err := writeUnitSQL(dir, unit("d", "2026-07-01"), &buf, e, []byte("changed"), made); err != nil {
		t.Fatal(err)
	}
	if s := read("d/2026-07-01.sql"); s != "changed" {
		t.Errorf("changed file holds %q", s)
	}
	if len(made) != 0 {
		t.Errorf("existing folders taken as made: %v", made)
	}
	for _, folder := range []string{"a", "d"} {
		files, _ := os.ReadDir(filepath.Join(dir, folder))
		for _, f := range files {
			if isTemp(f.Name()) {
				t.Errorf("temporary file left: %s/%s", folder, f.Name())
			}
		}
	}
}
