package render

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Text is the text an AsOfText slot stands for at the logical time t:
// run_started_at printed as Python prints dbt's (an aware UTC datetime:
// str() is "2026-08-01 00:00:00+00:00", isoformat() has a T), through
// strftime, or invocation_id.
//
// invocation_id is derived from the logical time, not the run id: the
// compiled SQL must be the SQL that runs, and reproducible, and a rerun of
// a run (same --as-of) must write the same rows. Its format is a UUID (the
// version nibble says 5: a name-based id) of sha256("idemc invocation " +
// the time in RFC 3339).
func (s *Slot) Text(t time.Time) string {
	t = t.UTC()
	switch {
	case s.A == "str":
		return pyDatetime(t, " ")
	case s.A == "iso":
		return pyDatetime(t, "T")
	case s.A == "invocation_id":
		return InvocationID(t)
	case strings.HasPrefix(s.A, "strftime:"):
		return strftime(t, strings.TrimPrefix(s.A, "strftime:"))
	}
	return ""
}

// InvocationID is invocation_id at the logical time t.
func InvocationID(t time.Time) string {
	sum := sha256.Sum256([]byte("idemc invocation " + t.UTC().Format(time.RFC3339Nano)))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b)
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// pyDatetime is Python's datetime.isoformat(sep) of an aware UTC time:
// microseconds only when there are any.
func pyDatetime(t time.Time, sep string) string {
	s := t.Format("2006-01-02") + sep + t.Format("15:04:05")
	if us := t.Nanosecond() / 1000; us != 0 {
		s += "." + pad(us, 6)
	}
	return s + "+00:00"
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// strftime formats t with Python's strftime directives (the C locale);
// an unknown directive is kept as written, as Python on Linux does.
func strftime(t time.Time, f string) string {
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case 'Y':
			b.WriteString(pad(t.Year(), 4))
		case 'y':
			b.WriteString(pad(t.Year()%100, 2))
		case 'm':
			b.WriteString(pad(int(t.Month()), 2))
		case 'd':
			b.WriteString(pad(t.Day(), 2))
		case 'H':
			b.WriteString(pad(t.Hour(), 2))
		case 'I':
			b.WriteString(pad((t.Hour()+11)%12+1, 2))
		case 'M':
			b.WriteString(pad(t.Minute(), 2))
		case 'S':
			b.WriteString(pad(t.Second(), 2))
		case 'f':
			b.WriteString(pad(t.Nanosecond()/1000, 6))
		case 'j':
			b.WriteString(pad(t.YearDay(), 3))
		case 'p':
			b.WriteString(t.Format("PM"))
		case 'a':
			b.WriteString(t.Format("Mon"))
		case 'A':
			b.WriteString(t.Format("Monday"))
		case 'b':
			b.WriteString(t.Format("Jan"))
		case 'B':
			b.WriteString(t.Format("January"))
		case 'w':
			b.WriteString(strconv.Itoa(int(t.Weekday())))
		case 'z':
			b.WriteString("+0000")
		case 'Z':
			b.WriteString("UTC")
		case 's':
			b.WriteString(strconv.FormatInt(t.Unix(), 10))
		case '%':
			b.WriteByte('%')
		default:
			b.WriteByte('%')
			b.WriteByte(f[i])
		}
	}
	return b.String()
}
