// Package diag holds positioned errors for everything the compiler reads:
// each names a file, a line and a column, and lists sort by position so a user
// sees every problem at once, in file order (the habit of go/scanner.ErrorList).
package diag

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrBadInput marks errors caused by the user's project or command line
// (exit code 2, nothing written).
var ErrBadInput = errors.New("bad input")

// Error is one problem at a position. Line and Col are 1-based; 0 means unknown.
type Error struct {
	Path string
	Line int
	Col  int
	Msg  string
}

func (e *Error) Error() string {
	switch {
	case e.Path == "":
		return e.Msg
	case e.Line == 0:
		return e.Path + ": " + e.Msg
	case e.Col == 0:
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Msg)
	}
}

// Is makes every positioned error a bad-input error.
func (e *Error) Is(target error) bool { return target == ErrBadInput }

// Errorf returns a positioned error.
func Errorf(path string, line, col int, format string, args ...any) *Error {
	return &Error{Path: path, Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// List collects errors; it is not safe for concurrent use.
type List []*Error

// Add appends a positioned error.
func (l *List) Add(path string, line, col int, format string, args ...any) {
	*l = append(*l, Errorf(path, line, col, format, args...))
}

// Append adds err, keeping its position if it has one.
func (l *List) Append(err error) {
	if err == nil {
		return
	}
	var e *Error
	if errors.As(err, &e) {
		*l = append(*l, e)
		return
	}
	var el List
	if errors.As(err, &el) {
		*l = append(*l, el...)
		return
	}
	*l = append(*l, &Error{Msg: err.Error()})
}

// Sort orders by path, line, column, then message, dropping exact duplicates.
func (l *List) Sort() {
	s := *l
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		if a.Col != b.Col {
			return a.Col < b.Col
		}
		return a.Msg < b.Msg
	})
	out := s[:0]
	for i, e := range s {
		if i > 0 && *e == *s[i-1] {
			continue
		}
		out = append(out, e)
	}
	*l = out
}

// Err returns the sorted list as an error, or nil when empty.
func (l List) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	return l
}

func (l List) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Is makes a list a bad-input error.
func (l List) Is(target error) bool { return target == ErrBadInput }
