package compiler

import (
	"testing"
	"time"

	"github.com/idemc/idemc/compiler/partition"
)

// TestLastBegun: lastBegun is the last partition partition.Range lists up
// to a time, at every granularity, on and off partition boundaries.
func TestLastBegun(t *testing.T) {
	start := time.Date(2025, 12, 31, 0, 0, 0, 0, time.UTC)
	times := []time.Time{
		time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2026, 3, 1, 13, 0, 0, 0, time.UTC),
		time.Date(2026, 3, 1, 13, 59, 59, 0, time.UTC),
		time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for _, g := range partition.Granularities {
		for _, at := range times {
			ws := partition.Range(partition.Truncate(start, g), at, g)
			want := ws[len(ws)-1].Start
			if got := lastBegun(at, g); !got.Equal(want) {
				t.Errorf("lastBegun(%s, %s) = %s, want %s", at, g, got, want)
			}
		}
	}
}
