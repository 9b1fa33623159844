package partition

import (
	"strings"
	"testing"
	"time"
)

func ts(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestParse(t *testing.T) {
	tests := []struct {
		in, g string
		want  string // RFC3339, or "" for an error
		err   string
	}{
		// canonical keys
		{"2026-07-30T13", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30", "day", "2026-07-30T00:00:00Z", ""},
		{"2026-07", "month", "2026-07-01T00:00:00Z", ""},
		{"2026", "year", "2026-01-01T00:00:00Z", ""},
		{"2024-02-29", "day", "2024-02-29T00:00:00Z", ""},
		// finer forms that are the start of a partition
		{"2026-07-30T13:00:00Z", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30T15:00:00+02:00", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30T13:00", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30 13:00:00", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30T00:00:00Z", "day", "2026-07-30T00:00:00Z", ""},
		{"2026-07-30T00", "day", "2026-07-30T00:00:00Z", ""},
		{"2026-07-01", "month", "2026-07-01T00:00:00Z", ""},
		{"2026-07-01T00:00:00.000Z", "month", "2026-07-01T00:00:00Z", ""},
		{"2026-01-01", "year", "2026-01-01T00:00:00Z", ""},
		{"2026-01", "year", "2026-01-01T00:00:00Z", ""},
		// not a partition start
		{"2026-07-30T13:30:00Z", "hour", "", `partition "2026-07-30T13:30:00Z" is not the start of an hour partition; write it as 2026-07-30T13`},
		{"2026-07-30T05", "day", "", `partition "2026-07-30T05" is not the start of a day partition; write it as 2026-07-30`},
		{"2026-07-30T00:00:00+02:00", "day", "", `not the start of a day partition; write it as 2026-07-29`},
		{"2026-07-30T02:00:00+02:00", "day", "2026-07-30T00:00:00Z", ""},
		{"2026-07-15", "month", "", `partition "2026-07-15" is not the start of a month partition; write it as 2026-07`},
		{"2026-03", "year", "", `partition "2026-03" is not the start of a year partition; write it as 2026`},
		// a coarser period is not one partition
		{"2026-07", "day", "", `partition "2026-07" is a month, not a day partition; write one day as 2026-07-01, or run every day of it with --start 2026-07-01 --end 2026-08-01`},
		{"2026", "month", "", `partition "2026" is a year, not a month partition; write one month as 2026-01, or run every month of it with --start 2026-01 --end 2027-01`},
		{"2026-07-30", "hour", "", `partition "2026-07-30" is a day, not an hour partition; write one hour as 2026-07-30T00, or run every hour of it with --start 2026-07-30T00 --end 2026-07-31T00`},
		{"2026-12", "day", "", `--start 2026-12-01 --end 2027-01-01`},
		// not dates
		{"2026-13-45", "day", "", `partition "2026-13-45" is not a valid day partition; write it as 2026-07-30`},
		{"2026-02-30", "day", "", `is not a valid day partition`},
		{"2026-07-30T24", "hour", "", `is not a valid hour partition; write it as 2026-07-30T13`},
		{"yesterday", "month", "", `partition "yesterday" is not a valid month partition; write it as 2026-07`},
		{"", "year", "", `partition "" is not a valid year partition; write it as 2026`},
		{" 2026", "year", "", `is not a valid year partition`},
		{"26", "year", "", `is not a valid year partition`},
		{"9999-12-31T23:00:00-05:00", "hour", "", `is not a valid hour partition`},
		{"0000-01-01T00:00:00+01:00", "hour", "", `is not a valid hour partition`},
		// bad granularity
		{"2026-07-30", "week", "", `unknown granularity "week"; use one of hour, day, month, year`},
		{"2026-07-30", "", "", `unknown granularity ""`},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in, tt.g)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Parse(%q, %s) = %v, %v; want error containing %q", tt.in, tt.g, got, err, tt.err)
			}
			continue
		}
		if err != nil || !got.Equal(ts(tt.want)) || got.Location() != time.UTC {
			t.Errorf("Parse(%q, %s) = %v, %v; want %s", tt.in, tt.g, got, err, tt.want)
		}
	}
}

func TestParseBound(t *testing.T) {
	tests := []struct{ in, g, want, err string }{
		{"2026-07", "day", "2026-07-01T00:00:00Z", ""},
		{"2026", "hour", "2026-01-01T00:00:00Z", ""},
		{"2026-07-30", "hour", "2026-07-30T00:00:00Z", ""},
		{"2026-07-30T13", "hour", "2026-07-30T13:00:00Z", ""},
		{"2026-07-30T13", "day", "", `"2026-07-30T13" is not the start of a day partition; write it as 2026-07-30`},
		{"soon", "day", "", `"soon" is not a date or timestamp`},
		{"2026", "fortnight", "", `unknown granularity "fortnight"`},
	}
	for _, tt := range tests {
		got, err := ParseBound(tt.in, tt.g)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("ParseBound(%q, %s) = %v, %v; want error containing %q", tt.in, tt.g, got, err, tt.err)
			}
			continue
		}
		if err != nil || !got.Equal(ts(tt.want)) {
			t.Errorf("ParseBound(%q, %s) = %v, %v; want %s", tt.in, tt.g, got, err, tt.want)
		}
	}
}

func TestParseTime(t *testing.T) {
	for in, want := range map[string]string{
		"2026-07-30":                     "2026-07-30T00:00:00Z",
		"2026-07-30T13:14:15Z":           "2026-07-30T13:14:15Z",
		"2026-07-30T13:14:15.5+02:00":    "2026-07-30T11:14:15.5Z",
		"2026-07-30T13:14:15":            "2026-07-30T13:14:15Z",
		"2026-07-30 13:14:15":            "2026-07-30T13:14:15Z",
		"2026-07-30T13:14":               "2026-07-30T13:14:00Z",
		"2026-07-30T13":                  "2026-07-30T13:00:00Z",
		"2026-07":                        "2026-07-01T00:00:00Z",
		"2026":                           "2026-01-01T00:00:00Z",
		"2026-07-30T13:14:15.123456789Z": "2026-07-30T13:14:15.123456789Z",
	} {
		got, err := ParseTime(in)
		w, _ := time.Parse(time.RFC3339Nano, want)
		if err != nil || !got.Equal(w) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %s", in, got, err, want)
		}
	}
	for _, in := range []string{"", "now", "2026-7-30", "30/07/2026", "2026-07-30T", "2026-07-30Z", "10000-01-01"} {
		if got, err := ParseTime(in); err == nil {
			t.Errorf("ParseTime(%q) = %v, want an error", in, got)
		} else if !strings.Contains(err.Error(), "write it as 2026-07-30 or 2026-07-30T13:00:00Z") {
			t.Errorf("ParseTime(%q): %v does not say how to write it", in, err)
		}
	}
}

func TestKeyTruncateNextPrev(t *testing.T) {
	at := ts("2026-12-31T23:59:59Z").Add(999 * time.Millisecond)
	tests := []struct {
		g, key, start, next, prev string
	}{
		{"hour", "2026-12-31T23", "2026-12-31T23:00:00Z", "2027-01-01T00:00:00Z", "2026-12-31T22:00:00Z"},
		{"day", "2026-12-31", "2026-12-31T00:00:00Z", "2027-01-01T00:00:00Z", "2026-12-30T00:00:00Z"},
		{"month", "2026-12", "2026-12-01T00:00:00Z", "2027-01-01T00:00:00Z", "2026-11-01T00:00:00Z"},
		{"year", "2026", "2026-01-01T00:00:00Z", "2027-01-01T00:00:00Z", "2025-01-01T00:00:00Z"},
	}
	for _, tt := range tests {
		start := Truncate(at, tt.g)
		if !start.Equal(ts(tt.start)) {
			t.Errorf("Truncate(%v, %s) = %v, want %s", at, tt.g, start, tt.start)
		}
		if k := Key(start, tt.g); k != tt.key {
			t.Errorf("Key(%v, %s) = %q, want %q", start, tt.g, k, tt.key)
		}
		if k := Key(at, tt.g); k != tt.key {
			t.Errorf("Key(%v, %s) = %q, want %q (a key names the partition holding the time)", at, tt.g, k, tt.key)
		}
		if n := Next(start, tt.g); !n.Equal(ts(tt.next)) {
			t.Errorf("Next(%v, %s) = %v, want %s", start, tt.g, n, tt.next)
		}
		if p := Prev(start, tt.g); !p.Equal(ts(tt.prev)) {
			t.Errorf("Prev(%v, %s) = %v, want %s", start, tt.g, p, tt.prev)
		}
		if back, err := Parse(tt.key, tt.g); err != nil || !back.Equal(start) {
			t.Errorf("Parse(Key) = %v, %v; want %v", back, err, start)
		}
		w := Window(start, tt.g)
		if !w.Start.Equal(start) || !w.End.Equal(ts(tt.next)) || w.Key != tt.key || w.Granularity != tt.g {
			t.Errorf("Window(%v, %s) = %+v", start, tt.g, w)
		}
	}
	// Truncate works in UTC whatever the input's zone.
	tokyo := time.FixedZone("JST", 9*3600)
	local := time.Date(2026, 7, 31, 2, 30, 0, 0, tokyo) // 2026-07-30T17:30Z
	if got := Truncate(local, "day"); !got.Equal(ts("2026-07-30T00:00:00Z")) || got.Location() != time.UTC {
		t.Errorf("Truncate(JST) = %v", got)
	}
	if got := Key(local, "hour"); got != "2026-07-30T17" {
		t.Errorf("Key(JST, hour) = %q", got)
	}
	// Month arithmetic from the first of the month never skips a month.
	m := ts("2026-01-01T00:00:00Z")
	for i := 0; i < 24; i++ {
		n := Next(m, "month")
		if n.Day() != 1 || (n.Month()-m.Month()+12)%12 != 1 {
			t.Fatalf("Next(%v, month) = %v", m, n)
		}
		m = n
	}
	for _, g := range []string{"week", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Truncate with granularity %q did not panic", g)
				}
			}()
			Truncate(at, g)
		}()
	}
}

func TestRange(t *testing.T) {
	keys := func(from, to, g string) string {
		var out []string
		for _, w := range Range(ts(from), ts(to), g) {
			out = append(out, w.Key)
		}
		return strings.Join(out, " ")
	}
	tests := []struct{ from, to, g, want string }{
		{"2026-07-01T00:00:00Z", "2026-07-04T00:00:00Z", "day", "2026-07-01 2026-07-02 2026-07-03"},
		{"2026-07-01T00:00:00Z", "2026-07-03T12:00:00Z", "day", "2026-07-01 2026-07-02 2026-07-03"},
		{"2026-07-01T12:00:00Z", "2026-07-03T00:00:00Z", "day", "2026-07-02"},
		{"2026-07-01T00:00:00Z", "2026-07-01T00:00:00Z", "day", ""},
		{"2026-07-02T00:00:00Z", "2026-07-01T00:00:00Z", "day", ""},
		{"2026-07-30T22:00:00Z", "2026-07-31T01:00:00Z", "hour", "2026-07-30T22 2026-07-30T23 2026-07-31T00"},
		{"2026-11-01T00:00:00Z", "2027-02-01T00:00:00Z", "month", "2026-11 2026-12 2027-01"},
		{"2026-01-01T00:00:00Z", "2028-06-01T00:00:00Z", "year", "2026 2027 2028"},
		{"2024-02-28T00:00:00Z", "2024-03-02T00:00:00Z", "day", "2024-02-28 2024-02-29 2024-03-01"},
	}
	for _, tt := range tests {
		if got := keys(tt.from, tt.to, tt.g); got != tt.want {
			t.Errorf("Range(%s, %s, %s) = %q, want %q", tt.from, tt.to, tt.g, got, tt.want)
		}
	}
	// Windows tile the range: each ends where the next starts.
	ws := Range(ts("2026-01-01T00:00:00Z"), ts("2026-03-01T00:00:00Z"), "hour")
	if len(ws) != (31+28)*24 {
		t.Fatalf("%d hour windows in Jan–Feb 2026", len(ws))
	}
	for i := 1; i < len(ws); i++ {
		if !ws[i-1].End.Equal(ws[i].Start) {
			t.Fatalf("gap between %+v and %+v", ws[i-1], ws[i])
		}
	}
}

func TestExample(t *testing.T) {
	for _, g := range Granularities {
		if _, err := Parse(Example(g), g); err != nil {
			t.Errorf("Example(%s) = %q does not parse: %v", g, Example(g), err)
		}
	}
}
