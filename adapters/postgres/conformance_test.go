package postgres_test

import (
	"net/url"
	"os"
	"strings"
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

// TestTimeZones runs the time-zone matrix on a live PostgreSQL, with the
// session's default zone set through the DSN's options (never the
// server's configuration).
func TestTimeZones(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.TimeZones(t, conformance.Target{
		Engine:     "postgres",
		Concurrent: true,
		Settings:   func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}, conformance.TimeZoneOptions{
		ServerZones: []string{"America/New_York", "Europe/Berlin", "Pacific/Chatham"},
		WithServerZone: func(s map[string]string, zone string) map[string]string {
			u, err := url.Parse(s["dsn"])
			if err != nil {
				t.Fatalf("IDEMC_PG_DSN is not a URL: %v", err)
			}
			q := u.Query()
			q.Set("options", "-c TimeZone="+zone)
			u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20") // pgx reads + literally
			return map[string]string{"dsn": u.String()}
		},
	})
}

// TestDriftMedian runs the drift rule's median query (percentile_cont).
func TestDriftMedian(t *testing.T) {
	dsn := conformance.Live(t, "postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	conformance.DriftMedian(t, conformance.Target{Engine: "postgres", Settings: func(string) map[string]string { return map[string]string{"dsn": dsn} }})
}
