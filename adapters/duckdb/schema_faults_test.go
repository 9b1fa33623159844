package duckdb_test

import (
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
)

// TestFaultsSchema runs the schema-change-then-fail trials (issue 17): a
// failed or killed unit that changed its destination's columns leaves them,
// and its rows, as they were; the rerun equals a clean build.
func TestFaultsSchema(t *testing.T) {
	conformance.SchemaFaults(t, targetduckdb(t))
}

func targetduckdb(*testing.T) conformance.Target {
	return conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	}
}
