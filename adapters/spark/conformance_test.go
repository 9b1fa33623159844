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

// target is the Spark Connect server of IDEMC_SPARK_URL (scripts/services.sh
// spark starts one with the Delta catalog and prints it); the tests skip
// when it is unset.
func target(t *testing.T) conformance.Target {
	dsn, ok := conformance.LiveIfSet(t, "spark", "IDEMC_SPARK_URL")
	if !ok {
		t.Skip("no Spark Connect server: run eval \"$(scripts/services.sh spark)\" to start one")
	}
	return conformance.Target{
		Engine:     "spark",
		Concurrent: true,
		Parallel:   true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}
}

// TestConformance runs the shared suite on a live Spark Connect server with
// Delta Lake (IDEMC_SPARK_URL, default the local server).
func TestConformance(t *testing.T) { conformance.Run(t, target(t)) }

// TestFaults runs the fault injection suite on live Spark: kill -9 by rule
// and by timer, and failed steps (Spark Connect lists no sessions to kill).
// Each unit is seconds of Delta commits on a 2-core machine, so CI runs
// 20 random trials on a project of two days (eight model units, not
// sixteen), two at a time, and no sweep: 639 s on a quiet machine. `make
// spark` (IDEMC_FAULT_TRIALS=20, IDEMC_FAULT_DAYS=6) runs the sweep and 20
// trials on the whole project.
func TestFaults(t *testing.T) {
	conformance.Faults(t, target(t), conformance.Options{Short: true, ShortTrials: 20, Days: 2, Lanes: 2})
}
