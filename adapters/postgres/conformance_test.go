package postgres_test

import (
	"os"
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
	_ "github.com/idemc/idemc/adapters/postgres"
)

func TestMain(m *testing.M) {
	conformance.MaybeChild()
	os.Exit(m.Run())
}

// TestConformance runs the shared suite on a live PostgreSQL (IDEMC_PG_DSN,
// default the local server).
func TestConformance(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.Run(t, conformance.Target{
		Engine:     "postgres",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	})
}
