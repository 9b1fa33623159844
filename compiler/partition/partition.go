// Package partition computes partition windows and their canonical keys for
// the granularities of DESIGN §4: hour, day, month, year. All times are UTC.
package partition

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
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
func Window(t time.Time, g string) adapters.Window {
	return adapters.Window{Start: t, End: Next(t, g), Granularity: g, Key: Key(t, g)}
}

// Parse reads a partition key of granularity g. It also accepts a date or
// timestamp that is exactly the start of a partition (2026-07-01 for a
// month), so users can pass the dates they know.
func Parse(s, g string) (time.Time, error) {
	layout, ok := layouts[g]
	if !ok {
		return time.Time{}, fmt.Errorf("unknown granularity %q; use one of %s", g, strings.Join(Granularities, ", "))
	}
	if t, err := time.Parse(layout, s); err == nil {
		return t, nil
	}
	t, err := ParseTime(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("partition %q is not a valid %s partition; write it as %s", s, g, Example(g))
	}
	if !Truncate(t, g).Equal(t) {
		return time.Time{}, fmt.Errorf("partition %q is not the start of a %s partition; write it as %s", s, g, Example(g))
	}
	return t, nil
}

// ParseTime reads a date or timestamp as written on a command line or in a
// model header.
func ParseTime(s string) (time.Time, error) {
	for _, l := range []string{"2006-01-02", time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02T15", "2006-01", "2006"} {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date or timestamp; write it as 2026-07-30 or 2026-07-30T13:00:00Z", s)
}

// Range returns the windows of every partition that starts in [from, to).
func Range(from, to time.Time, g string) []adapters.Window {
	var out []adapters.Window
	for t := Truncate(from, g); t.Before(to); t = Next(t, g) {
		if t.Before(from) {
			continue
		}
		out = append(out, Window(t, g))
	}
	return out
}
