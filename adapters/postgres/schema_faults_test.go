package postgres_test

import (
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
)

// TestFaultsSchema runs the schema-change-then-fail trials (issue 17): a
// failed or killed unit that changed its destination's columns leaves them,
// and its rows, as they were; the rerun equals a clean build.
func TestFaultsSchema(t *testing.T) {
	conformance.SchemaFaults(t, targetpostgres(t))
}

func targetpostgres(t *testing.T) conformance.Target {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	return conformance.Target{
		Engine: "postgres", Concurrent: true,
		Settings: func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}
}
