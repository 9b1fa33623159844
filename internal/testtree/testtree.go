// Package testtree writes a tree of files for a test: the projects the
// runner's and the command's tests build.
package testtree

import (
	"os"
	"path/filepath"
	"testing"
)

// Write creates files (relative path → text) under a new temporary folder
// and returns it.
func Write(tb testing.TB, files map[string]string) string {
	tb.Helper()
	dir := tb.TempDir()
	for path, text := range files {
		full := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// Append adds text to the end of the file at path under dir.
func Append(tb testing.TB, dir, path, text string) {
	tb.Helper()
	f, err := os.OpenFile(filepath.Join(dir, path), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(text); err != nil {
		tb.Fatal(err)
	}
}

// Replace writes the file at path under dir anew.
func Replace(tb testing.TB, dir, path, text string) {
	tb.Helper()
	if err := os.WriteFile(filepath.Join(dir, path), []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// Copy copies the tree at from into to, leaving out the top-level entries
// named in skip (a project's target/, say).
func Copy(tb testing.TB, from, to string, skip ...string) {
	tb.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		for _, s := range skip {
			if rel == s {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		tb.Fatal(err)
	}
}
