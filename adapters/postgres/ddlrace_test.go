package postgres

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestLostDDLRace: which errors of CREATE … IF NOT EXISTS the runner runs
// again (a concurrent creator), and which fail at once.
func TestLostDDLRace(t *testing.T) {
	e := &Engine{}
	for _, tc := range []struct {
		name string
		err  error
		race bool
	}{
		{"pg_type race", &pgconn.PgError{Code: "23505", ConstraintName: "pg_type_typname_nsp_index", Message: `duplicate key value violates unique constraint "pg_type_typname_nsp_index"`}, true},
		{"pg_namespace race, name in the message only", &pgconn.PgError{Code: "23505", Message: `duplicate key value violates unique constraint "pg_namespace_nspname_index"`}, true},
		{"pg_class race", &pgconn.PgError{Code: "23505", ConstraintName: "pg_class_relname_nsp_index"}, true},
		{"relation already exists", &pgconn.PgError{Code: "42P07", Message: `relation "t" already exists`}, true},
		{"schema already exists", &pgconn.PgError{Code: "42P06", Message: `schema "s" already exists`}, true},
		{"row type already exists", &pgconn.PgError{Code: "42710", Message: `type "idemc_state" already exists`}, true},
		{"wrapped", fmt.Errorf("creating: %w", &pgconn.PgError{Code: "42P07"}), true},
		{"a user table's unique violation", &pgconn.PgError{Code: "23505", ConstraintName: "t_pkey", Message: `duplicate key value violates unique constraint "t_pkey"`}, false},
		{"permission denied", &pgconn.PgError{Code: "42501", Message: "permission denied for database test"}, false},
		{"syntax error", &pgconn.PgError{Code: "42601"}, false},
		{"deadlock (a unit's retry, not DDL's)", &pgconn.PgError{Code: "40P01"}, false},
		{"not a server error", errors.New(`relation "t" already exists`), false},
	} {
		if got := e.LostDDLRace(tc.err); got != tc.race {
			t.Errorf("%s: LostDDLRace = %v, want %v", tc.name, got, tc.race)
		}
	}
}
