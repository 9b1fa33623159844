package dialecttest

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// Update is the -update flag of every test that imports this package:
// Golden rewrites its files instead of comparing (go test ./adapters/...
// -update; review the diff: a golden change is a behaviour change).
var Update = flag.Bool("update", false, "rewrite the golden files")

// Golden compares got with the file at path, or rewrites the file with
// -update. A second -update changes nothing: the file is written only when
// its content differs.
func Golden(t testing.TB, path, got string) {
	t.Helper()
	if err := golden(path, got, *Update); err != nil {
		t.Error(err)
	}
}

type goldenError struct{ path, got, msg string }

func (e *goldenError) Error() string { return e.path + " " + e.msg + ":\n" + e.got }

func golden(path, got string, update bool) error {
	want, err := os.ReadFile(path)
	switch {
	case update && (err != nil || string(want) != got):
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		return os.WriteFile(path, []byte(got), 0o644)
	case update:
		return nil
	case err != nil:
		return &goldenError{path, got, "is missing (run the test with -update to create it)"}
	case string(want) != got:
		return &goldenError{path, got, "differs (run the test with -update and review the diff)"}
	}
	return nil
}
