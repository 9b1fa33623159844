package notify

import (
	"testing"
	"time"

	"github.com/idemc/idemc/compiler/project"
)

func TestDerive(t *testing.T) {
	units := []unitRow{
		{Model: "daily", Partition: "2026-07-01", Status: "succeeded", RunID: "r1", Inputs: "in1", Rows: 3},
		{Model: "daily", Partition: "2026-07-02", Status: "succeeded", RunID: "r2", Inputs: "in2", Rows: 4,
			Checks: []check{{Name: "min_rows(5)", Status: "warn"}, {Name: "unique(k)", Status: "pass"}}},
		{Model: "bad", Status: "failed", RunID: "r2", Attempt: 2, Error: "check min_rows(5) failed\nsample"},
		{Model: "other", Status: "succeeded", RunID: "r2", Inputs: "in3"},
		{Model: "drifty", Partition: "2026-07-05", Status: "succeeded", RunID: "r2", Inputs: "in4", Rows: 30,
			Checks: []check{{Name: "drift.row_count(window 14, ratio 0.5..2)", Status: "warn", Sample: []string{"(row_count=30, median=100, ratio=0.3)"}}}},
		{Model: "drifty", Partition: "2026-07-06", Status: "succeeded", RunID: "r2", Inputs: "in5", Rows: 100,
			Checks: []check{{Name: "drift.row_count(window 14, ratio 0.5..2)", Status: "pass"}}},
		// An error drift failed its unit: a unit_failed event, no drift one.
		{Model: "drifty", Partition: "2026-07-07", Status: "failed", RunID: "r2", Attempt: 1, Error: "check drift.zero_rows failed",
			Checks: []check{{Name: "drift.zero_rows", Status: "fail"}}},
	}
	runs := []runRow{{RunID: "r2", Command: "build", Target: "local", Outcome: "failed", Succeeded: 2, Failed: 1}}
	all := map[string]bool{"daily": true, "bad": true, "other": true, "drifty": true}
	tests := []struct {
		on     string
		chosen map[string]bool
		want   []string // model/partition of each event, in order
	}{
		{"partition_succeeded", map[string]bool{"daily": true}, []string{"daily/2026-07-01", "daily/2026-07-02"}},
		{"partition_succeeded", all, []string{"daily/2026-07-01", "daily/2026-07-02", "other/", "drifty/2026-07-05", "drifty/2026-07-06"}},
		{"check_warned", all, []string{"daily/2026-07-02"}}, // a drift warning is a drift event, not this
		{"drift", all, []string{"drifty/2026-07-05"}},
		{"drift", map[string]bool{"daily": true}, nil},
		{"unit_failed", all, []string{"bad/", "drifty/2026-07-07"}},
		{"unit_failed", map[string]bool{"daily": true}, nil},
		{"model_succeeded", all, []string{"daily/", "other/"}}, // bad and drifty failed: no event
		{"run_finished", nil, []string{"/"}},
	}
	for _, tt := range tests {
		t.Run(tt.on, func(t *testing.T) {
			n := &project.Notify{Name: "x", On: tt.on}
			evs := derive(n, "p", units, runs, tt.chosen, time.Now())
			var got []string
			for _, e := range evs {
				got = append(got, e.Model+"/"+e.Partition)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("events %v, want %v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("events %v, want %v", got, tt.want)
				}
			}
			again := derive(n, "p", units, runs, tt.chosen, time.Now().Add(time.Hour))
			for i := range evs {
				if evs[i].ID != again[i].ID {
					t.Errorf("event %d's id changed between derivations", i)
				}
			}
		})
	}
}

// TestEventIDs: a success's id follows the unit's input fingerprint (the
// same inputs publish the same rows), a failure's the run and attempt.
func TestEventIDs(t *testing.T) {
	n := &project.Notify{Name: "x", On: "partition_succeeded"}
	one := func(u unitRow) string {
		return derive(n, "p", []unitRow{u}, nil, map[string]bool{"m": true}, time.Now())[0].ID
	}
	base := unitRow{Model: "m", Partition: "2026-07-01", Status: "succeeded", RunID: "r1", Inputs: "in"}
	rerun := base
	rerun.RunID = "r2" // a forced rebuild with the same inputs
	changed := base
	changed.Inputs = "in-changed"
	if one(base) != one(rerun) {
		t.Error("an identical rebuild got a new event id")
	}
	if one(base) == one(changed) {
		t.Error("new inputs kept the old event id")
	}
	n2 := &project.Notify{Name: "y", On: "partition_succeeded"}
	if derive(n2, "p", []unitRow{base}, nil, map[string]bool{"m": true}, time.Now())[0].ID == one(base) {
		t.Error("two notifies share an event id")
	}
}
