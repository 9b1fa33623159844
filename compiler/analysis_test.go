package compiler

import (
	"testing"
	"time"
)

// TestAnalysisDate: the stand-in date parses, and its timestamp literal is
// the one a window of that date renders, so the analysis reads one date.
func TestAnalysisDate(t *testing.T) {
	at := analysisTime()
	if want := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC); !at.Equal(want) || at.Location() != time.UTC {
		t.Fatalf("analysisTime() = %v, want %v", at, want)
	}
	if got := analysisLiteral(at, "hour"); got != analysisTimestamp {
		t.Errorf("analysisLiteral(hour) = %q, analysisTimestamp = %q", got, analysisTimestamp)
	}
	if got, want := analysisLiteral(at, "day"), "DATE '2026-01-01'"; got != want {
		t.Errorf("analysisLiteral(day) = %q, want %q", got, want)
	}
}
