package conformance

import (
	"reflect"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestAttemptRows: an append-only audit's running row and final row of
// one attempt read as the final row; an attempt left running (a dead run
// nobody abandoned yet) stays running, and attempts stay apart.
func TestAttemptRows(t *testing.T) {
	row := func(status, run, attempt string) []string {
		return []string{"daily", "2026-07-01", status, "3", run, attempt}
	}
	for _, tc := range []struct {
		name string
		in   [][]string
		want []string // status per attempt, in first-seen order
	}{
		{"updating audit", [][]string{row("succeeded", "r1", "1")}, []string{"succeeded"}},
		{"running then final", [][]string{row("running", "r1", "1"), row("succeeded", "r1", "1")}, []string{"succeeded"}},
		{"final before running", [][]string{row("abandoned", "r1", "1"), row("running", "r1", "1")}, []string{"abandoned"}},
		{"left running", [][]string{row("running", "r1", "1")}, []string{"running"}},
		{"attempts apart", [][]string{row("running", "r1", "1"), row("abandoned", "r1", "1"), row("running", "r2", "2"), row("succeeded", "r2", "2")}, []string{"abandoned", "succeeded"}},
		{"runs apart", [][]string{row("running", "r1", "1"), row("succeeded", "r2", "1")}, []string{"running", "succeeded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, a := range attemptRows(tc.in) {
				got = append(got, a.status)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestFaultLanes: lanes draw from generators of their own (lane 0 keeps
// the suite's seed), start the fail_step cycle at different purposes, and
// their tallies add up in the suite's summary.
func TestFaultLanes(t *testing.T) {
	s := &faultSuite{o: Options{Seed: 42, Lanes: 3}, failNext: 5,
		outcomes: map[string]map[string]int{kindCrashRule: {"killed": 1}}, fired: map[plan.Purpose]int{}, missed: map[plan.Purpose][]string{}}
	if laneSeed(42, 0) != 42 {
		t.Errorf("lane 0's seed %d, want the suite's 42", laneSeed(42, 0))
	}
	a, b := s.lane(1), s.lane(2)
	if a.rng.Int63() == b.rng.Int63() || a.failNext == b.failNext {
		t.Error("two lanes draw the same trials")
	}
	a.count(kindCrashRule, "killed")
	a.fired[plan.Insert] = 2
	a.recovered = 1
	b.count(kindFailStep, "failed at insert")
	b.missed[plan.Commit] = []string{"daily/2026-07-01"}
	b.recovered, b.midStmt = 2, 1
	if s.outcomes[kindCrashRule]["killed"] != 1 {
		t.Fatal("a lane's tally reached the suite before the merge")
	}
	s.merge(a)
	s.merge(b)
	if got := s.outcomes[kindCrashRule]["killed"]; got != 2 {
		t.Errorf("crash_rule killed %d, want 2", got)
	}
	if s.outcomes[kindFailStep]["failed at insert"] != 1 || s.fired[plan.Insert] != 2 || len(s.missed[plan.Commit]) != 1 || s.recovered != 3 || s.midStmt != 1 {
		t.Errorf("merged tallies: outcomes %v fired %v missed %v recovered %d mid-statement %d", s.outcomes, s.fired, s.missed, s.recovered, s.midStmt)
	}
}
