package main

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/idemc/idemc/internal/testtree"
)

// TestPlanIsWhatBuildRuns: after each step of a project's life — fresh,
// built, a model edited, a failed check fixed, forced flags — the units
// idemc plan lists are exactly the units the same build then runs, and
// each has a reason.
func TestPlanIsWhatBuildRuns(t *testing.T) {
	dir := testtree.Write(t, eventsProject)
	steps := []struct {
		name string
		edit func()
		args []string
	}{
		{"fresh", nil, []string{"--as-of", "2026-07-03T00:00:00Z"}},
		{"nothing changed", nil, []string{"--as-of", "2026-07-03T00:00:00Z"}},
		{"a day later", nil, []string{"--as-of", "2026-07-04T00:00:00Z"}},
		{"upstream edited", func() { testtree.Append(t, dir, "models/src.sql", "-- edited\n") }, []string{"--as-of", "2026-07-04T00:00:00Z"}},
		{"failed check fixed", func() {
			testtree.Replace(t, dir, "models/bad.sql", "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 1\n*/\nSELECT x FROM {{ ref(\"src\") }}\n")
		}, []string{"--as-of", "2026-07-04T00:00:00Z"}},
		{"one partition forced", nil, []string{"--as-of", "2026-07-04T00:00:00Z", "--select", "daily", "--partition", "2026-07-02"}},
		{"full refresh", nil, []string{"--as-of", "2026-07-04T00:00:00Z", "--select", "daily+", "--full-refresh"}},
	}
	for _, s := range steps {
		if s.edit != nil {
			s.edit()
		}
		out, code := runIdemc(dir, append([]string{"plan", "--json"}, s.args...)...)
		if code != 0 {
			t.Fatalf("%s: plan: exit %d\n%s", s.name, code, out)
		}
		var pl struct {
			Plan struct {
				Units []struct{ Unit, Reason string }
			}
		}
		if err := json.Unmarshal([]byte(out), &pl); err != nil {
			t.Fatalf("%s: %v\n%s", s.name, err, out)
		}
		var planned []string
		for _, u := range pl.Plan.Units {
			if u.Reason == "" || u.Reason == "stale" {
				t.Errorf("%s: %s has no reason", s.name, u.Unit)
			}
			planned = append(planned, u.Unit)
		}
		out, _ = runIdemc(dir, append([]string{"build", "--log-format", "json"}, s.args...)...)
		var ran []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var e struct{ Event, Unit, Status string }
			_ = json.Unmarshal([]byte(line), &e)
			if e.Event == "unit_finished" { // skipped ones too: a failure upstream is not foreseen
				ran = append(ran, e.Unit)
			}
		}
		sort.Strings(planned)
		sort.Strings(ran)
		if strings.Join(planned, " ") != strings.Join(ran, " ") {
			t.Fatalf("%s: plan listed %v\nbuild ran %v", s.name, planned, ran)
		}
		t.Logf("%s: %d units planned and run", s.name, len(ran))
	}
}
