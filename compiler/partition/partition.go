// Package partition computes partition windows and their canonical keys for
// the granularities of DESIGN §4: hour, day, month, year. All times are UTC.
package partition

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/plan"
)

// Granularities lists the valid units.
var Granularities = []string{"hour", "day", "month", "year"}

var layouts = map[string]string{
	"hour":  "2006-01-02T15",
	"day":   "2006-01-02",
	"month": "2006-01",
	"year":  "2006",
}

// Example returns a valid key of the granularity, for error messages.
func Example(g string) string {
	return map[string]string{"hour": "2026-07-30T13", "day": "2026-07-30", "month": "2026-07", "year": "2026"}[g]
}

// Truncate returns the start of the partition containing t.
func Truncate(t time.Time, g string) time.Time {
	t = t.UTC()
	switch g {
	case "hour":
		return t.Truncate(time.Hour)
	case "day":
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "year":
		return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
	}
	panic("partition: unknown granularity " + g)
}

// Next returns the start of the partition after the one starting at t.
func Next(t time.Time, g string) time.Time {
	switch g {
	case "hour":
		return t.Add(time.Hour)
	case "day":
		return t.AddDate(0, 0, 1)
	case "month":
		return t.AddDate(0, 1, 0)
	case "year":
		return t.AddDate(1, 0, 0)
	}
	panic("partition: unknown granularity " + g)
}

// Prev returns the start of the partition before the one starting at t.
func Prev(t time.Time, g string) time.Time {
	switch g {
	case "hour":
		return t.Add(-time.Hour)
	case "day":
		return t.AddDate(0, 0, -1)
	case "month":
		return t.AddDate(0, -1, 0)
	case "year":
		return t.AddDate(-1, 0, 0)
	}
	panic("partition: unknown granularity " + g)
}

// Key is the canonical text of the partition starting at t.
func Key(t time.Time, g string) string { return t.UTC().Format(layouts[g]) }

// Window returns the partition starting at t.
func Window(t time.Time, g string) plan.Window {
	return plan.Window{Start: t, End: Next(t, g), Granularity: g, Key: Key(t, g)}
}

// rank orders granularities from the finest; an input written to a coarser
// precision than its partition's granularity names a period, not a partition.
var rank = map[string]int{"hour": 0, "day": 1, "month": 2, "year": 3}

// timeLayouts are the forms ParseTime accepts, each with the granularity its
// text is precise to ("" for finer than an hour).
var timeLayouts = []struct{ layout, precision string }{
	{"2006-01-02", "day"},
	{time.RFC3339Nano, ""},
	{"2006-01-02T15:04:05", ""},
	{"2006-01-02 15:04:05", ""},
	{"2006-01-02T15:04", ""},
	{"2006-01-02T15", "hour"},
	{"2006-01", "month"},
	{"2006", "year"},
}

// Parse reads a partition key of granularity g, as given to --partition. It
// also accepts a timestamp that is exactly the start of a partition
// (2026-07-30T00:00:00Z for a day), but not a coarser period: "2026-07" names
// a month, and for a day model it is an error that says how to run the
// month's days.
func Parse(s, g string) (time.Time, error) {
	layout, ok := layouts[g]
	if !ok {
		return time.Time{}, fmt.Errorf("unknown granularity %q; use one of %s", g, strings.Join(Granularities, ", "))
	}
	if t, err := time.Parse(layout, s); err == nil {
		return t, nil
	}
	t, prec, err := parseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("partition %q is not a valid %s partition; write it as %s", s, g, Example(g))
	}
	if prec != "" && rank[prec] > rank[g] {
		return time.Time{}, fmt.Errorf("partition %q is %s, not %s partition; write one %s as %s, or run every %s of it with --start %s --end %s",
			s, a(prec), a(g), g, Key(t, g), g, Key(t, g), Key(Next(t, prec), g))
	}
	if !Truncate(t, g).Equal(t) {
		return time.Time{}, fmt.Errorf("partition %q is not the start of %s partition; write it as %s", s, a(g), Key(Truncate(t, g), g))
	}
	return t, nil
}

// ParseBound reads the start of a range of g partitions, as given to
// --start: any date or timestamp that is the start of a partition, including
// a coarser period (2026-07 for a day model means 2026-07-01).
func ParseBound(s, g string) (time.Time, error) {
	if _, ok := layouts[g]; !ok {
		return time.Time{}, fmt.Errorf("unknown granularity %q; use one of %s", g, strings.Join(Granularities, ", "))
	}
	t, _, err := parseTime(s)
	if err != nil {
		return time.Time{}, err
	}
	if !Truncate(t, g).Equal(t) {
		return time.Time{}, fmt.Errorf("%q is not the start of %s partition; write it as %s", s, a(g), Key(Truncate(t, g), g))
	}
	return t, nil
}

// a puts the article before a granularity: "an hour", "a day".
func a(g string) string {
	if g == "hour" {
		return "an hour"
	}
	return "a " + g
}

// ParseTime reads a date or timestamp as written on a command line or in a
// model header.
func ParseTime(s string) (time.Time, error) {
	t, _, err := parseTime(s)
	return t, err
}

func parseTime(s string) (time.Time, string, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l.layout, s); err == nil {
			t = t.UTC()
			// An offset can move a time out of the four-digit years that
			// keys are written in; such a key could not be read back.
			if t.Year() < 0 || t.Year() > 9999 {
				break
			}
			return t, l.precision, nil
		}
	}
	return time.Time{}, "", fmt.Errorf("%q is not a date or timestamp; write it as 2026-07-30 or 2026-07-30T13:00:00Z", s)
}

// Range returns the windows of every partition that starts in [from, to).
func Range(from, to time.Time, g string) []plan.Window {
	var out []plan.Window
	for t := Truncate(from, g); t.Before(to); t = Next(t, g) {
		if t.Before(from) {
			continue
		}
		out = append(out, Window(t, g))
	}
	return out
}
