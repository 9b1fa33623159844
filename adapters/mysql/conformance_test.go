package mysql_test

import (
	"os"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/idemc/idemc/adapters/conformance"
	_ "github.com/idemc/idemc/adapters/mysql"
)

func TestMain(m *testing.M) {
	conformance.MaybeChild()
	os.Exit(m.Run())
}

// TestConformance runs the shared suite on a live MySQL or MariaDB
// (IDEMC_MYSQL_DSN, default the local server).
func TestConformance(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.Run(t, conformance.Target{
		Engine:     "mysql",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	})
}

// TestFaults runs the fault injection suite on a live MySQL or MariaDB,
// with KILL CONNECTION besides kill -9 and failed steps.
func TestFaults(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.Faults(t, conformance.Target{
		Engine:     "mysql",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.Options{})
}

// TestHostile runs the hostile input scenarios on a live MySQL or MariaDB.
func TestHostile(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.Hostile(t, conformance.Target{
		Engine:     "mysql",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	})
}

// TestConcurrent runs the concurrent-runner trials: 2–4 idemc processes at
// once with overlapping selections, a failing check and fresh schemas
// (IDEMC_CONC_TRIALS, IDEMC_FAULT_SEED, IDEMC_SOAK).
func TestConcurrent(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.Concurrent(t, conformance.Target{
		Engine:     "mysql",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.Options{})
}

// TestTimeZones runs the time-zone matrix on a live MariaDB, with the
// session's time_zone set through the DSN (offsets: the server has no
// zone tables, and loading them would change it for everyone).
func TestTimeZones(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.TimeZones(t, conformance.Target{
		Engine:     "mysql",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.TimeZoneOptions{
		ServerZones: []string{"-05:00", "+05:30", "+13:45"},
		WithServerZone: func(s map[string]string, zone string) map[string]string {
			c, err := gomysql.ParseDSN(s["dsn"])
			if err != nil {
				t.Fatalf("IDEMC_MYSQL_DSN: %v", err)
			}
			if c.Params == nil {
				c.Params = map[string]string{}
			}
			c.Params["time_zone"] = "'" + zone + "'"
			return map[string]string{"dsn": c.FormatDSN()}
		},
	})
}

// TestDriftMedian runs the drift rule's median query (the middle rows by
// ROW_NUMBER: MariaDB's MEDIAN is a window function only).
func TestDriftMedian(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	conformance.DriftMedian(t, conformance.Target{Engine: "mysql", Settings: func(string) map[string]string { return map[string]string{"dsn": dsn} }})
}
