package diag

import (
	"strconv"
	"strings"
)

// Severity of a finding.
type Severity int

// Severities, from least to most severe. Errors block build and compile.
const (
	SeverityInfo Severity = iota
	SeverityWarning
	SeverityError
)

// String returns "info", "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "severity(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the severity as its name (for JSON artifacts).
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads "info", "warning" or "error".
func (s *Severity) UnmarshalText(b []byte) error {
	switch string(b) {
	case "info":
		*s = SeverityInfo
	case "warning":
		*s = SeverityWarning
	case "error":
		*s = SeverityError
	default:
		return &unknownSeverityError{string(b)}
	}
	return nil
}

type unknownSeverityError struct{ s string }

func (e *unknownSeverityError) Error() string {
	return "diag: unknown severity " + strconv.Quote(e.s)
}

// Finding is one lint result; Line/Col are 1-based positions in the SQL text given in Input
// (Col counts characters, not bytes).
type Finding struct {
	Path      string
	Line, Col int
	Rule      string // "L000".."L007"
	Severity  Severity
	Message   string
}

// String formats the finding as "models/x.sql:12:8: L001 now() is nondeterministic; use {{ as_of }}".
func (f Finding) String() string {
	var b strings.Builder
	b.Grow(len(f.Path) + len(f.Rule) + len(f.Message) + 16)
	if f.Path != "" {
		b.WriteString(f.Path)
		b.WriteByte(':')
	}
	b.WriteString(strconv.Itoa(f.Line))
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(f.Col))
	b.WriteString(": ")
	b.WriteString(f.Rule)
	b.WriteByte(' ')
	b.WriteString(f.Message)
	return b.String()
}
