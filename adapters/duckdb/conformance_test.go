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

// TestFaults runs the fault injection suite: kill -9 (by rule and by timer)
// and failed steps during a backfill, each followed by a rerun that must
// give a clean run's tables (IDEMC_FAULT_TRIALS, IDEMC_FAULT_SEED, IDEMC_SOAK).
func TestFaults(t *testing.T) {
	conformance.Faults(t, conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	}, conformance.Options{})
}

// TestHostile runs the hostile input scenarios: quotes, semicolons and
// comments in names and values, hostile partition values, and secrets.
func TestHostile(t *testing.T) {
	conformance.Hostile(t, conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	})
}

// TestConcurrent runs the concurrent-runner trials: 2–4 idemc processes at
// once with overlapping selections, a failing check and fresh schemas
// (IDEMC_CONC_TRIALS, IDEMC_FAULT_SEED, IDEMC_SOAK).
// DuckDB takes one writer: a second runner must be refused with a clear
// "locked by another run" error and leave no harm.
func TestConcurrent(t *testing.T) {
	conformance.Concurrent(t, conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	}, conformance.Options{})
}

// TestTimeZones runs the time-zone matrix: builds under several process TZ
// values across DST changes leave what a UTC build leaves.
func TestTimeZones(t *testing.T) {
	conformance.TimeZones(t, conformance.Target{
		Engine:   "duckdb",
		Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} },
	}, conformance.TimeZoneOptions{})
}

// TestDriftMedian runs the drift rule's median query on DuckDB (median()).
func TestDriftMedian(t *testing.T) {
	conformance.DriftMedian(t, conformance.Target{Engine: "duckdb", Settings: func(dir string) map[string]string { return map[string]string{"path": filepath.Join(dir, "w.duckdb")} }})
}
