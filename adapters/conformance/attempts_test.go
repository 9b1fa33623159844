package conformance

import (
	"reflect"
	"testing"
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
