package suggest

import "testing"

func TestClosest(t *testing.T) {
	cands := []string{"events_daily", "stg_events", "dim_users", "materialized", "partition_by"}
	for _, tc := range []struct{ in, want string }{
		{"evnts_daily", "events_daily"},
		{"events_dialy", "events_daily"},
		{"materialised", "materialized"},
		{"partition", "partition_by"},
		{"qqqqqqqqq", ""},
		{"zzz", ""},
		{"dim_user", "dim_users"},
		{"", ""},
	} {
		if got := Closest(tc.in, cands); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestClosestRunes(t *testing.T) {
	cands := []string{"events_daily", "events_hourly", "dim_users", "stg_users", "ab"}
	tests := []struct{ name, want string }{
		{"evnts_daily", "events_daily"},
		{"events_daly", "events_daily"},
		{"dim_user", "dim_users"},
		{"stg_user", "stg_users"}, // distance 1 to stg_users, 3 to dim_users
		{"xyz", ""},
		{"a", "ab"},
		{"events_daily", "events_daily"},
		{"", "ab"}, // within 2 edits
		{"évents_daily", "events_daily"},
	}
	for _, tt := range tests {
		if got := Closest(tt.name, cands); got != tt.want {
			t.Errorf("Closest(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Distances count runes: "aé" is one edit from both (a tie, so "ae"
	// wins); counting bytes would make "aéx" closer.
	if got := Closest("aé", []string{"aéx", "ae"}); got != "ae" {
		t.Errorf("Closest(aé) = %q, want ae", got)
	}
	// Ties go to the lexically smallest, whatever the order.
	if a, b := Closest("ac", []string{"bc", "ab"}), Closest("ac", []string{"ab", "bc"}); a != "ab" || b != "ab" {
		t.Errorf("tie broken by order: %q %q", a, b)
	}
	if got := Closest("x", nil); got != "" {
		t.Errorf("Closest(nil) = %q", got)
	}
}
