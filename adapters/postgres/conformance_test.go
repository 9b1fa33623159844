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

// TestFaults runs the fault injection suite on a live PostgreSQL, with
// server-side session termination besides kill -9 and failed steps.
func TestFaults(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.Faults(t, conformance.Target{
		Engine:     "postgres",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.Options{})
}

// TestHostile runs the hostile input scenarios on a live PostgreSQL.
func TestHostile(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.Hostile(t, conformance.Target{
		Engine:     "postgres",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	})
}

// TestConcurrent runs the concurrent-runner trials: 2–4 idemc processes at
// once with overlapping selections, a failing check and fresh schemas
// (IDEMC_CONC_TRIALS, IDEMC_FAULT_SEED, IDEMC_SOAK).
func TestConcurrent(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.Concurrent(t, conformance.Target{
		Engine:     "postgres",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.Options{})
}
