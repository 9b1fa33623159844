package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestResult is one check over a whole table, or one singular test.
type TestResult struct {
	Path     string `json:"name"`
	Model    string `json:"model,omitempty"`
	Severity string `json:"severity"`
	Status   string `json:"status"` // pass, fail, warn
	Detail   string `json:"detail,omitempty"`
}

// Test runs every declared check of the selected models over their whole
// tables, then the singular tests, read-only.
func Test(ctx context.Context, p *project.Project, opts compiler.Options) ([]*TestResult, error) {
	opts.Models = false
	plan, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, err
	}
	eng, ad, err := Connect(ctx, p, opts.Target)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	sess, err := eng.Session(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	var out []*TestResult
	for _, n := range plan.Selected {
		node := plan.Nodes[n]
		if node.Seed || len(node.Checks) == 0 {
			continue
		}
		w := &adapters.Write{Model: n, Materialized: node.Materialized, Target: node.Relation, PartitionBy: node.PartitionBy}
		for _, c := range node.Checks {
			tr := &TestResult{Path: c.Name, Model: n, Severity: c.Severity, Status: "pass"}
			cols, rows, err := sess.Query(ctx, ad.Dialect.CheckQuery(c, w, true), sqlgen.SampleLimit)
			switch {
			case err != nil:
				tr.Status, tr.Detail = "fail", err.Error()
			case len(rows) > 0:
				tr.Status, tr.Detail = "fail", sample(cols, rows)
				if c.Severity == "warn" {
					tr.Status = "warn"
				}
			}
			out = append(out, tr)
		}
	}
	singular, err := runTests(ctx, eng, plan, sess)
	return append(out, singular...), err
}

// runTests runs tests/*.sql: each returns its failing rows.
func runTests(ctx context.Context, eng adapters.Engine, plan *compiler.Plan, sess adapters.Session) ([]*TestResult, error) {
	if len(plan.Tests) == 0 {
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
	for _, t := range plan.Tests {
		tr := &TestResult{Path: t.Path, Severity: "error", Status: "pass"}
		cols, rows, err := sess.Query(ctx, t.SQL, sqlgen.SampleLimit)
		switch {
		case err != nil:
			tr.Status, tr.Detail = "fail", err.Error()
		case len(rows) > 0:
			tr.Status, tr.Detail = "fail", sample(cols, rows)
		}
		out = append(out, tr)
	}
	return out, nil
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
