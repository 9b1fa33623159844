package spark_test

import (
	"os"
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
	_ "github.com/idemc/idemc/adapters/spark"
)

func TestMain(m *testing.M) {
	conformance.MaybeChild()
	os.Exit(m.Run())
}

// sparkURL is the local Spark Connect server that scripts/services.sh spark
// starts (Delta catalog, session zone UTC).
const sparkURL = "sc://127.0.0.1:15002"

func target(t *testing.T) conformance.Target {
	dsn := conformance.Live(t, "spark", "IDEMC_SPARK_URL", sparkURL)
	return conformance.Target{
		Engine:     "spark",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}
}

// TestConformance runs the shared suite on a live Spark Connect server with
// Delta Lake (IDEMC_SPARK_URL, default the local server).
func TestConformance(t *testing.T) { conformance.Run(t, target(t)) }

// TestFaults runs the fault injection suite on live Spark: kill -9 by rule
// and by timer, and failed steps (Spark Connect lists no sessions to kill).
func TestFaults(t *testing.T) { conformance.Faults(t, target(t), conformance.Options{}) }
