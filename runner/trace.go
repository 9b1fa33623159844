package runner

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// lockedWriter is w written by one goroutine at a time (nil for nil): the
// units of a run trace on their own goroutines, and Options.Trace may be
// any writer (a test's strings.Builder).
func lockedWriter(w io.Writer) io.Writer {
	if w == nil {
		return nil
	}
	return &locked{w: w}
}

type locked struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *locked) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// tracing wraps a session and prints each statement's duration (IDEMC_TRACE=1).
type tracing struct {
	adapters.Session
	w    io.Writer
	unit string
}

func (t *tracing) log(start time.Time, kind, q string) {
	q = strings.Join(strings.Fields(q), " ")
	if len(q) > 100 {
		q = q[:97] + "..."
	}
	fmt.Fprintf(t.w, "trace %-30s %-7s %8.1fms  %s\n", t.unit, kind, float64(time.Since(start).Microseconds())/1000, q)
}

func (t *tracing) Exec(ctx context.Context, s *plan.Step) (plan.Result, error) {
	kind := "exec"
	if s.Check != nil || s.Lock != nil {
		kind = "query" // as they were traced when they went through Query
	}
	defer t.log(time.Now(), kind, s.SQL)
	return t.Session.Exec(ctx, s)
}

func (t *tracing) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	defer t.log(time.Now(), "query", q)
	return t.Session.Query(ctx, q, limit)
}

func (t *tracing) Columns(ctx context.Context, q string) ([]plan.Column, error) {
	defer t.log(time.Now(), "columns", q)
	return t.Session.Columns(ctx, q)
}

func (t *tracing) Relation(ctx context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	defer t.log(time.Now(), "relation", r.Schema+"."+r.Name)
	return t.Session.Relation(ctx, r)
}

// counting counts the statements a session executes that could write
// (Result.Statements).
type counting struct {
	adapters.Session
	n *atomic.Int64
}

func (c *counting) Exec(ctx context.Context, s *plan.Step) (plan.Result, error) {
	if s.Check == nil && s.Lock == nil { // checks and locks are queries: they write nothing
		c.n.Add(1)
	}
	return c.Session.Exec(ctx, s)
}

// Unwrap returns the traced session (adapters.ListRelations finds the
// engine's optional interfaces through it).
func (t *tracing) Unwrap() adapters.Session { return t.Session }

// Unwrap returns the counted session.
func (c *counting) Unwrap() adapters.Session { return c.Session }

// counted wraps a session so its statements are counted (and traced with
// IDEMC_TRACE=1).
func (r *run) counted(s adapters.Session) adapters.Session {
	s = &counting{Session: s, n: &r.statements}
	if r.trace != nil {
		s = &tracing{Session: s, w: r.trace, unit: "run"}
	}
	return s
}
