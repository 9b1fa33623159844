package bigquery

import (
	"context"
	"errors"
	"strings"

	bq "cloud.google.com/go/bigquery"
	"google.golang.org/api/iterator"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/bigquery/dialect"
	"github.com/idemc/idemc/plan"
)

// reset starts (inTx) or discards a buffered script.
func (s *Session) reset(inTx bool) {
	s.inTx, s.script, s.asserts, s.writes = inTx, nil, nil, nil
}

// commit submits the buffered script. A script that stopped on one of its
// ASSERTs (each says "idemc check NAME") fails as that check. A committed
// script reports the rows its writes affected, read from its child jobs
// (-1 when they cannot be read).
func (s *Session) commit(ctx context.Context, st *plan.Step) (plan.Result, error) {
	if !s.inTx {
		return plan.Result{}, errors.New("bigquery: COMMIT TRANSACTION without BEGIN TRANSACTION")
	}
	script, starts := s.scriptText()
	asserts, writes := s.asserts, s.writes
	s.reset(false)
	job := st.Job
	if job == nil || job.Kind == "" {
		job = &plan.JobSpec{Kind: "script"}
	}
	rows := int64(-1)
	_, err := s.run(ctx, script, job, func(j *bq.Job) error {
		rows = childRows(ctx, j, starts, writes)
		return nil
	})
	if c := failedAssert(err, asserts); c != nil {
		return plan.Result{}, &adapters.CheckFailed{Check: c.Name, Err: err}
	}
	return plan.Result{Affected: rows}, err
}

// childRows sums the rows affected by the script's child jobs that ran
// the write statements (writes: indexes of starts, each statement's first
// line). BigQuery runs each statement of a script as a child job, listed
// by jobs.list with parentJobId, whose script statistics locate the
// statement: its first stack frame's StartLine, 1-based, past leading
// comments and space (cloud.google.com/bigquery/docs/multi-statement-queries,
// "child jobs"; bigquery.ScriptStackFrame). -1 when the children cannot be
// listed (the unit's rows are then not known, the audit row's count is).
func childRows(ctx context.Context, j *bq.Job, starts []int, writes []int) int64 {
	if len(writes) == 0 {
		return -1
	}
	isWrite := map[int]bool{}
	for _, w := range writes {
		isWrite[w] = true
	}
	var n int64
	it := j.Children(ctx)
	for {
		c, err := it.Next()
		if err == iterator.Done {
			return n
		}
		if err != nil {
			return -1
		}
		st := c.LastStatus()
		if st == nil || st.Statistics == nil || st.Statistics.ScriptStatistics == nil || len(st.Statistics.ScriptStatistics.StackFrames) == 0 {
			continue
		}
		q, ok := st.Statistics.Details.(*bq.QueryStatistics)
		if !ok || q == nil || !isDML(q.StatementType) {
			continue
		}
		if isWrite[statementAt(starts, st.Statistics.ScriptStatistics.StackFrames[0].StartLine)] {
			n += q.NumDMLAffectedRows
		}
	}
}

// statementAt is the index of the statement whose lines hold line (starts
// ascending), -1 before the first.
func statementAt(starts []int, line int64) int {
	i := -1
	for k, s := range starts {
		if int64(s) <= line {
			i = k
		}
	}
	return i
}

// failedAssert is the check whose ASSERT message a failed script's error
// carries (the longest name that matches: unique(a) is in unique(a, b)'s).
func failedAssert(err error, asserts []*plan.Check) *plan.Check {
	if err == nil {
		return nil
	}
	msg := err.Error()
	var found *plan.Check
	for _, c := range asserts {
		if strings.Contains(msg, dialect.AssertMessage(c)) && (found == nil || len(c.Name) > len(found.Name)) {
			found = c
		}
	}
	return found
}

// Script is the buffered transaction as the one script it is submitted as.
func (s *Session) Script() string {
	text, _ := s.scriptText()
	return text
}

// scriptText is the script and the line (1-based) each buffered statement
// starts on.
func (s *Session) scriptText() (string, []int) {
	var b strings.Builder
	b.WriteString(dialect.BeginSQL + ";\n")
	line, starts := 2, make([]int, len(s.script))
	for i, q := range s.script {
		starts[i] = line
		// A statement ending in a model's line comment gets its ";" on a
		// line of its own: glued, the comment would swallow the rest.
		t := plan.Terminated(q)
		b.WriteString(t)
		b.WriteString("\n")
		line += strings.Count(t, "\n") + 1
	}
	b.WriteString(dialect.CommitSQL + ";")
	return b.String(), starts
}
