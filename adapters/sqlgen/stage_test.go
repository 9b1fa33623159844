package sqlgen

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/idemc/idemc/plan"
)

// TestStageName: a run's stage carries its run id's random part (two
// runners of one unit never share a stage) and fits an identifier.
func TestStageName(t *testing.T) {
	long := strings.Repeat("x", 60)
	cases := []struct {
		name, table, runID, want string
	}{
		{"a printed plan", "daily", "", "daily__idemc_stage"},
		{"a plan without a run id tag", "daily", "r1", "daily__idemc_stage"},
		{"a run", "daily", "20260701T000000.000Z-0a1b2c3d", "daily__idemc_stage_0a1b2c3d"},
		{"another run", "daily", "20260701T000000.000Z-ffff0000", "daily__idemc_stage_ffff0000"},
		{"a long name", long + "a", "20260701T000000.000Z-0a1b2c3d", ""},
		{"another long name", long + "b", "20260701T000000.000Z-0a1b2c3d", ""},
	}
	seen := map[string]string{}
	for _, c := range cases {
		w := &plan.Write{Target: plan.Relation{Name: c.table}}
		if c.runID != "" {
			w.Audit = &plan.AuditRow{RunID: c.runID}
		}
		got := StageName(w)
		if c.want != "" && got != c.want {
			t.Errorf("%s: StageName = %q, want %q", c.name, got, c.want)
		}
		if len(got) > 63 {
			t.Errorf("%s: %q is %d bytes, over 63", c.name, got, len(got))
		}
		if other, dup := seen[got]; dup && c.runID != "r1" {
			t.Errorf("%s and %s share the stage %q", c.name, other, got)
		}
		seen[got] = c.name
	}
}

// TestSeedLoadName: every load has a table of its own, within 63 bytes.
func TestSeedLoadName(t *testing.T) {
	for _, name := range []string{"codes", strings.Repeat("é", 40)} {
		seen := map[string]bool{}
		for i := 0; i < 50; i++ {
			got := SeedLoadName(plan.Relation{Schema: "raw", Name: name}, "").Name
			if seen[got] {
				t.Fatalf("two loads of %s share %s", name, got)
			}
			seen[got] = true
			if len(got) > 63 || !strings.Contains(got, "__idemc_new_") || !utf8.ValidString(got) {
				t.Fatalf("load table %q: want a valid name of at most 63 bytes with __idemc_new_", got)
			}
		}
	}
	// A run's load is named by its tag, so that a later run can tell it.
	if got := SeedLoadName(plan.Relation{Schema: "raw", Name: "codes"}, "0badf00d").Name; got != "codes__idemc_new_0badf00d" {
		t.Fatalf("tagged load table %q, want codes__idemc_new_0badf00d", got)
	}
}

// TestRunTables: the tables a run names by its tag are told apart from
// everything else beside their destination, in any case, so that the next
// run can drop those of a dead run (an HTTP ingest killed with its run
// left orders__idemc_http_<random> forever).
func TestRunTables(t *testing.T) {
	tag := RunTag("20260703T060000.000Z-cafe0001")
	land := HTTPLandingName(plan.Relation{Schema: "raw", Name: "orders"}, tag).Name
	seedOfLand := SeedLoadName(plan.Relation{Name: land}, tag).Name
	for _, tc := range []struct {
		name string
		f    func(dest, name string) (string, bool)
		dest string
		ok   bool
	}{
		{land, HTTPLandingRun, "orders", true},
		{strings.ToUpper(land), HTTPLandingRun, "ORDERS", true},
		{seedOfLand, HTTPLandingRun, "orders", true},
		{"orders__idemc_http_zzzzzzzz", HTTPLandingRun, "orders", false},
		{"orders__idemc_http_", HTTPLandingRun, "orders", false},
		{land, HTTPLandingRun, "order", false},
		{"codes__idemc_new_" + tag, SeedLoadRun, "codes", true},
		{"codes__idemc_new_" + tag, HTTPLandingRun, "codes", false},
		{"events__idemc_stage_x_20260702_" + tag, StageRun, "events", true},
		{"events__idemc_stage_x_20260702_" + tag, SeedLoadRun, "events", false},
	} {
		got, ok := tc.f(tc.dest, tc.name)
		if ok != tc.ok || ok && got != tag {
			t.Errorf("%s of %s: %q %v, want ok=%v (tag %s)", tc.name, tc.dest, got, ok, tc.ok, tag)
		}
	}
}
