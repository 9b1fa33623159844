package seed

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// fit is a set of kinds a value can be read as.
type fit uint8

const (
	fitBigInt fit = 1 << iota
	fitDouble
	fitBoolean
	fitDate
	fitTimestamp
	fitAll = fitBigInt | fitDouble | fitBoolean | fitDate | fitTimestamp
)

// inferOrder is the order inference tries the kinds: the narrowest that
// every value fits wins, and text fits everything.
var inferOrder = []struct {
	f fit
	k Kind
}{{fitBigInt, BigInt}, {fitDouble, Double}, {fitBoolean, Boolean}, {fitDate, Date}, {fitTimestamp, Timestamp}}

// fits reports which of the kinds in want a non-empty value can be read
// as (only those are tested: a column's candidates shrink as it is read).
// Numbers are recognized strictly (an optional '-', digits with no leading
// zero, an optional fraction; no '+', no exponent, no Inf/NaN), so a value
// like 00123 or +44 keeps its text. A date also fits timestamp (its
// midnight), and an integer also fits double, so mixed columns widen.
func fits(v string, want fit) fit {
	var f fit
	if want&(fitBigInt|fitDouble) != 0 {
		switch shapeOf(v) {
		case shapeInt:
			if _, err := strconv.ParseInt(v, 10, 64); err == nil {
				f |= fitBigInt | fitDouble
			}
			// A longer integer is text: as a double it would lose digits.
		case shapeDecimal:
			if x, err := strconv.ParseFloat(v, 64); err == nil && !math.IsInf(x, 0) {
				f |= fitDouble
			}
		}
	}
	if want&fitBoolean != 0 && isBool(v) {
		f |= fitBoolean
	}
	if want&(fitDate|fitTimestamp) != 0 && len(v) >= 10 && v[4] == '-' {
		if _, ok := parseDate(v); ok {
			f |= fitDate | fitTimestamp
		} else if _, ok := parseTimestamp(v); ok {
			f |= fitTimestamp
		}
	}
	return f & want
}

type shape int

const (
	shapeNone shape = iota
	shapeInt
	shapeDecimal
)

// shapeOf classifies v by the strict number grammar of inference:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?
func shapeOf(v string) shape {
	s := strings.TrimPrefix(v, "-")
	intEnd := 0
	for intEnd < len(s) && s[intEnd] >= '0' && s[intEnd] <= '9' {
		intEnd++
	}
	switch {
	case intEnd == 0:
		return shapeNone
	case s[0] == '0' && intEnd > 1:
		return shapeNone // a leading zero: an identifier (zip code, account number)
	case intEnd == len(s):
		return shapeInt
	case s[intEnd] != '.' || intEnd+1 == len(s):
		return shapeNone
	}
	for _, c := range s[intEnd+1:] {
		if c < '0' || c > '9' {
			return shapeNone
		}
	}
	return shapeDecimal
}

// infer picks a column's kind from the set of kinds all its non-empty
// values fit; a column with no value is text.
func infer(all fit, seen bool) Kind {
	if !seen {
		return Text
	}
	for _, o := range inferOrder {
		if all&o.f != 0 {
			return o.k
		}
	}
	return Text
}

// convert reads a non-empty value as kind k. Declared kinds read numbers
// more leniently than inference recognizes them (a leading '+', leading
// zeros and exponents are accepted when the user asked for a number), but
// never Inf, NaN or hexadecimal, which not every engine stores.
func convert(v string, k Kind) (any, bool) {
	switch k {
	case BigInt:
		x, err := strconv.ParseInt(v, 10, 64)
		return x, err == nil
	case Double:
		if strings.ContainsAny(v, "xXnN_iI") {
			return nil, false
		}
		x, err := strconv.ParseFloat(v, 64)
		return x, err == nil && !math.IsInf(x, 0)
	case Boolean:
		return strings.EqualFold(v, "true"), isBool(v)
	case Date:
		return parseDate(v)
	case Timestamp:
		if len(v) == 10 {
			return parseDate(v)
		}
		return parseTimestamp(v)
	}
	if p, s, ok := k.Decimal(); ok {
		d, err := ParseDecimal(v, p, s)
		return d, err == nil
	}
	return v, true
}

func isBool(v string) bool { return strings.EqualFold(v, "true") || strings.EqualFold(v, "false") }

// parseDate reads YYYY-MM-DD (a real day of the calendar). It is written
// out rather than left to time.Parse, which dominated loading a large seed.
func parseDate(v string) (time.Time, bool) {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := digits(v[0:4])
	m, ok2 := digits(v[5:7])
	d, ok3 := digits(v[8:10])
	if !ok1 || !ok2 || !ok3 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return time.Time{}, false
	}
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC), true
}

// parseTimestamp reads a date, a space or T, hh:mm:ss and an optional
// fraction of 1 to 9 digits. A value with a time zone is text: seeds hold
// wall-clock timestamps.
func parseTimestamp(v string) (time.Time, bool) {
	if len(v) < 19 || (v[10] != ' ' && v[10] != 'T') || v[13] != ':' || v[16] != ':' {
		return time.Time{}, false
	}
	day, ok := parseDate(v[:10])
	h, ok1 := digits(v[11:13])
	mi, ok2 := digits(v[14:16])
	sec, ok3 := digits(v[17:19])
	if !ok || !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	ns := 0
	if frac := v[19:]; frac != "" {
		f, ok := digits(frac[1:])
		if frac[0] != '.' || len(frac) < 2 || len(frac) > 10 || !ok {
			return time.Time{}, false
		}
		for n := len(frac) - 1; n < 9; n++ {
			f *= 10
		}
		ns = f
	}
	return day.Add(time.Duration(h)*time.Hour + time.Duration(mi)*time.Minute + time.Duration(sec)*time.Second + time.Duration(ns)), true
}

// digits reads a non-empty run of ASCII digits.
func digits(s string) (int, bool) {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, s != ""
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func formatScalar(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case string:
		return x
	}
	return ""
}
