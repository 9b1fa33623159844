package duckdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// createAtomically makes path an empty DuckDB database if it does not
// exist, without ever letting DuckDB create it in place. DuckDB decides
// "new database" from a stat and then opens the file with O_TRUNC before it
// takes its lock, so two processes creating one file at once (concurrent
// idemc runs on a fresh project) could empty the winner's file after its
// header was written: the file then stayed "not a valid DuckDB database
// file" for good (TestOpenRace; found by TestConcurrent in CI). The
// database is made under a name of this process's own and linked into
// place; a link fails when another process won, and its file is used.
func createAtomically(ctx context.Context, path string) error {
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil // there, or unreadable: the open reports what is wrong
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".%s.%d-%s.new", filepath.Base(path), os.Getpid(), hex.EncodeToString(b[:])))
	defer os.Remove(tmp + ".wal")
	defer os.Remove(tmp)
	db, err := open(ctx, tmp)
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", path, err)
	}
	return nil
}
