package rawfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestDirStat: Dir.Stat tells what os.Stat tells of the same path.
func TestDirStat(t *testing.T) {
	root := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(root, "m"), 0o755))
	must(os.WriteFile(filepath.Join(root, "m", "p.sql"), []byte("SELECT 1"), 0o640))
	must(os.WriteFile(filepath.Join(root, "x"), nil, 0o600))
	must(os.Chmod(filepath.Join(root, "x"), 0o4755)) // setuid kept
	must(os.Symlink("m/p.sql", filepath.Join(root, "link")))
	must(os.Symlink("nowhere", filepath.Join(root, "broken")))
	d, err := OpenDir(root)
	must(err)
	defer d.Close()
	for _, rel := range []string{"m", "m/p.sql", "x", "link", "."} {
		got, err := d.Stat(rel)
		must(err)
		want, err := os.Stat(filepath.Join(root, rel))
		must(err)
		if got.Size != want.Size() || !got.MTime.Equal(want.ModTime()) || got.Mode != want.Mode() {
			t.Errorf("%s: %+v, want size %d, time %v, mode %v", rel, got, want.Size(), want.ModTime(), want.Mode())
		}
	}
	for _, rel := range []string{"missing", "m/missing.sql", "broken"} {
		if _, err := d.Stat(rel); !os.IsNotExist(err) {
			t.Errorf("%s: %v, want not-exist", rel, err)
		}
	}
	if _, err := OpenDir(filepath.Join(root, "x")); err == nil {
		t.Error("a file opened as a folder")
	}
}
