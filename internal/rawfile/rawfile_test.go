package rawfile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("SELECT 1;\n", 1000)
	path := filepath.Join(dir, "m.sql")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// The size is a hint: a file that grew or shrank since its stat is
	// read to its end all the same.
	for _, hint := range []int64{int64(len(text)), 0, 1, 100, int64(len(text)) * 3} {
		b, err := ReadFile(path, hint)
		if err != nil || string(b) != text {
			t.Errorf("hint %d: %d bytes, %v; want %d", hint, len(b), err, len(text))
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.sql"), 10); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}

func TestEqual(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "u.sql")
	if err := os.WriteFile(path, []byte("abc"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	for _, c := range []struct {
		data         string
		same, exists bool
	}{
		{"abc", true, true},
		{"ab", false, true},   // the file is longer
		{"abcd", false, true}, // shorter
		{"abd", false, true},
		{"", false, true},
	} {
		same, exists := Equal(path, []byte(c.data), &buf)
		if same != c.same || exists != c.exists {
			t.Errorf("Equal(%q) = %v, %v; want %v, %v", c.data, same, exists, c.same, c.exists)
		}
	}
	if same, exists := Equal(filepath.Join(dir, "none"), nil, &buf); same || exists {
		t.Errorf("missing file: %v, %v", same, exists)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "u.sql")
	for _, text := range []string{"first", "second, longer", ""} {
		if err := WriteAtomic(path, []byte(text)); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(b, []byte(text)) {
			t.Fatalf("after writing %q: %q, %v", text, b, err)
		}
	}
	left, _ := os.ReadDir(dir)
	if len(left) != 1 {
		t.Errorf("%d files left, want the one written: %v", len(left), left)
	}
	// A folder in the way is an error, and no temporary file stays.
	sub := filepath.Join(dir, "folder")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(sub, []byte("x")); err == nil {
		t.Error("writing over a folder succeeded")
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Errorf("a temporary file stayed: %v", left)
	}
	if err := WriteAtomic(filepath.Join(dir, "no", "such", "f"), []byte("x")); !os.IsNotExist(err) {
		t.Errorf("missing folder: %v", err)
	}
}

func TestWriteAtomicStream(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cache", "c.gob") // the folder is made
	big := strings.Repeat("0123456789", 20_000)  // past the buffer
	for _, text := range []string{"first", big, ""} {
		err := WriteAtomicStream(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || string(b) != text {
			t.Fatalf("after writing %d bytes: %d bytes, %v", len(text), len(b), err)
		}
	}
	// A write that fails leaves the old file and no temporary one.
	if err := WriteAtomicStream(path, func(w io.Writer) error {
		io.WriteString(w, big)
		return errors.New("cut")
	}); err == nil || err.Error() != "cut" {
		t.Fatalf("failing write: %v", err)
	}
	if b, _ := os.ReadFile(path); len(b) != 0 {
		t.Errorf("a failed write replaced the file (%d bytes)", len(b))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	if left, _ := os.ReadDir(filepath.Dir(path)); len(left) != 1 {
		t.Errorf("files left: %v, want the one written", left)
	}
}

func TestTempNames(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 1000; i++ {
		n := nextName()
		if n == "" || seen[n] {
			t.Fatalf("name %q repeated or empty", n)
		}
		seen[n] = true
	}
}
