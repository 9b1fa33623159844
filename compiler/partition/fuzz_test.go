package partition

import (
	"testing"
	"time"
)

// FuzzPartitionParse: any text × any granularity parses or is refused without
// a panic; a parsed partition is a UTC partition start whose canonical key
// reads back as the same time.
func FuzzPartitionParse(f *testing.F) {
	for _, s := range []string{"2026-07-30", "2026-07-30T13", "2026-07", "2026", "2026-07-01", "2026-13-45",
		"2026-07-30T13:00:00Z", "2026-07-30T15:00:00+02:00", "0000", "9999-12-31T23", "0000-01-01T00:00:00+01:00",
		"9999-12-31T23:00:00-05:00", "2026-07-30 13:00:00", "2026-07-30T13:00", "", "x"} {
		for g := range uint8(5) {
			f.Add(s, g)
		}
	}
	f.Fuzz(func(t *testing.T, s string, gi uint8) {
		g := "week" // an invalid granularity is an error, never a panic
		if int(gi) < len(Granularities) {
			g = Granularities[gi]
		}
		if g == "week" {
			if _, err := Parse(s, g); err == nil {
				t.Fatalf("Parse(%q, week) accepted an unknown granularity", s)
			}
			if _, err := ParseBound(s, g); err == nil {
				t.Fatalf("ParseBound(%q, week) accepted an unknown granularity", s)
			}
			return
		}
		for name, parse := range map[string]func(string, string) (time.Time, error){"Parse": Parse, "ParseBound": ParseBound} {
			tm, err := parse(s, g)
			if err != nil {
				if err.Error() == "" {
					t.Fatalf("%s(%q, %s): empty error", name, s, g)
				}
				continue
			}
			if tm.Location().String() != "UTC" {
				t.Fatalf("%s(%q, %s) = %v, not UTC", name, s, g, tm)
			}
			if !Truncate(tm, g).Equal(tm) {
				t.Fatalf("%s(%q, %s) = %v, not a partition start", name, s, g, tm)
			}
			key := Key(tm, g)
			back, err := Parse(key, g)
			if err != nil {
				t.Fatalf("%s(%q, %s) = %v, but its key %q does not parse: %v", name, s, g, tm, key, err)
			}
			if !back.Equal(tm) {
				t.Fatalf("%s(%q, %s) = %v; Parse(Key = %q) = %v", name, s, g, tm, key, back)
			}
			if Key(back, g) != key {
				t.Fatalf("key %q is not canonical: %q", key, Key(back, g))
			}
			w := Window(tm, g)
			if !w.End.After(w.Start) || !Prev(w.End, g).Equal(w.Start) {
				t.Fatalf("window %+v", w)
			}
		}
	})
}
