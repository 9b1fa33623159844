package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// TestResult is one check over a whole table, or one singular test.
type TestResult struct {
	Path     string      `json:"name"`
	Model    string      `json:"model,omitempty"`
	Severity string      `json:"severity"`
	Status   CheckStatus `json:"status"`
	Detail   string      `json:"detail,omitempty"`
}

// Test runs every declared check of the selected models over their whole
// tables, then the singular tests, read-only.
func Test(ctx context.Context, p *project.Project, opts compiler.Options) ([]*TestResult, error) {
	opts.Models = false
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, err
	}
	c, err := openConn(ctx, p, opts.Target)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	eng, ad, sess := c.eng, c.ad, c.sess
	var out []*TestResult
	for _, n := range pl.Selected {
		node := pl.Nodes[n]
		if node.Seed || len(node.Checks) == 0 {
			continue
		}
		w := &plan.Write{Model: n, Materialized: node.Materialized, Target: node.Relation, PartitionBy: node.PartitionBy}
		for _, c := range node.Checks {
			tr := &TestResult{Path: c.Name, Model: n, Severity: c.Severity, Status: CheckPass}
			cols, rows, err := readOnlyQuery(ctx, sess, ad.Dialect.Name(), ad.Dialect.CheckQuery(c, w, true))
			switch {
			case err != nil:
				tr.Status, tr.Detail = CheckFail, err.Error()
			case len(rows) > 0:
				tr.Status, tr.Detail = CheckFail, sample(cols, rows)
				if c.Severity == "warn" {
					tr.Status = CheckWarn
				}
			}
			out = append(out, tr)
		}
	}
	singular, err := runTests(ctx, eng, pl, selectedTests(pl, opts), sess)
	return append(out, singular...), err
}

// selectedTests are the singular tests a command runs: every one without
// --select or --exclude; else, as dbt selects tests by the nodes they
// reference, those that ref() a selected model or seed.
func selectedTests(pl *plan.Plan, o compiler.Options) []*plan.SingularTest {
	if len(o.Select) == 0 && len(o.Exclude) == 0 {
		return pl.Tests
	}
	selected := map[string]bool{}
	for _, n := range pl.Selected {
		selected[n] = true
	}
	var out []*plan.SingularTest
	for _, t := range pl.Tests {
		for _, r := range t.Refs {
			if selected[r] {
				out = append(out, t)
				break
			}
		}
	}
	return out
}

// runTests runs the singular tests: each returns its failing rows.
func runTests(ctx context.Context, eng adapters.Engine, pl *plan.Plan, tests []*plan.SingularTest, sess adapters.Session) ([]*TestResult, error) {
	if len(tests) == 0 {
		return nil, nil
	}
	if sess == nil {
		s, err := eng.Session(ctx)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		sess = s
	}
	var out []*TestResult
	for _, t := range tests {
		tr := &TestResult{Path: t.Path, Severity: "error", Status: CheckPass}
		cols, rows, err := readOnlyQuery(ctx, sess, pl.Engine, t.SQL)
		switch {
		case err != nil:
			tr.Status, tr.Detail = CheckFail, err.Error()
		case len(rows) > 0:
			tr.Status, tr.Detail = CheckFail, sample(cols, rows)
		}
		out = append(out, tr)
	}
	return out, nil
}

// readOnlyBegin is the statement that opens a read-only transaction on an
// engine that has one; the others (Snowflake, BigQuery, Spark) have none
// and run tests as they are.
func readOnlyBegin(engine string) (string, bool) {
	switch engine {
	case "duckdb", "postgres", "mysql":
		return "START TRANSACTION READ ONLY", true
	}
	return "", false
}

// readOnlyQuery runs one check or test in a read-only transaction of its
// own, so no test can write (a check expression calling a writing
// function, a tests/*.sql that deletes) and a failed one does not abort
// the next one's transaction.
func readOnlyQuery(ctx context.Context, sess adapters.Session, engine, sql string) ([]string, [][]string, error) {
	begin, ok := readOnlyBegin(engine)
	if !ok {
		return sess.Query(ctx, sql, sqlgen.SampleLimit)
	}
	if _, err := adapters.ExecSQL(ctx, sess, begin); err != nil {
		return nil, nil, fmt.Errorf("opening a read-only transaction: %w", err)
	}
	cols, rows, err := sess.Query(ctx, sql, sqlgen.SampleLimit)
	if _, rerr := adapters.ExecSQL(ctx, sess, "ROLLBACK"); rerr != nil && err == nil {
		err = fmt.Errorf("ending the read-only transaction: %w", rerr)
	}
	return cols, rows, err
}

func sample(cols []string, rows [][]string) string {
	parts := make([]string, len(rows))
	for i, row := range rows {
		kv := make([]string, len(row))
		for j, v := range row {
			kv[j] = cols[j] + "=" + v
		}
		parts[i] = "(" + strings.Join(kv, ", ") + ")"
	}
	s := fmt.Sprintf("%d failing rows or more, e.g. ", len(rows))
	if len(rows) < sqlgen.SampleLimit {
		s = fmt.Sprintf("%d failing rows: ", len(rows))
	}
	return s + strings.Join(parts, "; ")
}
