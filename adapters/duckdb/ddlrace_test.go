package duckdb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
)

// TestLostDDLRace: which errors of CREATE … IF NOT EXISTS the runner runs
// again (another session of the process created the entry), and which
// fail at once.
func TestLostDDLRace(t *testing.T) {
	e := &Engine{}
	for _, tc := range []struct {
		name string
		err  error
		race bool
	}{
		{"already exists", &duckdb.Error{Type: duckdb.ErrorTypeCatalog, Msg: `Catalog Error: Table with name "t" already exists!`}, true},
		{"write-write conflict", &duckdb.Error{Type: duckdb.ErrorTypeTransaction, Msg: `TransactionContext Error: Catalog write-write conflict on create with "s"`}, true},
		{"wrapped", fmt.Errorf("creating: %w", &duckdb.Error{Type: duckdb.ErrorTypeCatalog, Msg: "Catalog Error: Schema with name s already exists!"}), true},
		{"other catalog error", &duckdb.Error{Type: duckdb.ErrorTypeCatalog, Msg: "Catalog Error: Table with name t does not exist!"}, false},
		{"disk full", &duckdb.Error{Type: duckdb.ErrorTypeIO, Msg: "IO Error: No space left on device"}, false},
		{"not a DuckDB error", errors.New("Catalog Error: already exists"), false},
	} {
		if got := e.LostDDLRace(tc.err); got != tc.race {
			t.Errorf("%s: LostDDLRace = %v, want %v", tc.name, got, tc.race)
		}
	}
}
