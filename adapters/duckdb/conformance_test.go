package duckdb_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
	_ "github.com/idemc/idemc/adapters/duckdb"
)

func TestMain(m *testing.M) {
	conformance.MaybeChild()
	os.Exit(m.Run())
}

func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	})
}
