package docsite

import (
	"context"
	"strconv"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// maxRuns is how many of the latest runs the site lists.
const maxRuns = 30

// readWarehouse reads, read-only, each relation's columns and types and the
// latest runs, then closes the connection (a DuckDB file takes one
// handle at a time) and reads the audit table through runner.Status.
func readWarehouse(ctx context.Context, s *Site, p *project.Project, pl *plan.Plan, opts compiler.Options) ([]runner.StatusRow, error) {
	if err := readCatalog(ctx, s, p, pl, opts.Target); err != nil {
		return nil, err
	}
	opts.Partition, opts.Start, opts.End, opts.Select, opts.Exclude = "", "", "", nil, nil
	return runner.Status(ctx, p, opts)
}

func readCatalog(ctx context.Context, s *Site, p *project.Project, pl *plan.Plan, target string) error {
	eng, ad, err := runner.Connect(ctx, p, target)
	if err != nil {
		return err
	}
	defer eng.Close()
	sess, err := eng.Session(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	for _, n := range s.Nodes {
		pn := pl.Nodes[n.Name]
		if pn == nil || pn.Materialized == plan.Ephemeral {
			continue
		}
		cols, ok, err := sess.Relation(ctx, pn.Relation)
		if err != nil {
			return err
		}
		n.Exists = &ok
		mergeColumns(n, cols)
	}
	t := p.Targets[pl.Target]
	schema := t.StateSchema
	if schema == "" {
		schema = t.Schema
	}
	st := plan.StateIn(schema)
	if _, ok, err := sess.Relation(ctx, st.Runs); err != nil || !ok {
		return err // no run yet
	}
	s.Runs, err = readRuns(ctx, sess, ad.Dialect, st)
	return err
}

// forgetWarehouse drops what a failed read found: types, existence, runs,
// and the columns that only the warehouse listed.
func forgetWarehouse(s *Site) {
	s.Runs = []Run{}
	for _, n := range s.Nodes {
		n.Exists = nil
		if n.Kind == "seed" || n.ColumnsUnknown != "" {
			n.Columns = []*Column{}
		}
		for _, c := range n.Columns {
			c.Type = ""
		}
	}
}

// mergeColumns adds the warehouse's types to the analysed columns; a node
// whose columns the analysis does not know takes the warehouse's list.
func mergeColumns(n *Node, cols []adapters.Column) {
	if len(n.Columns) == 0 {
		for _, c := range cols {
			n.Columns = append(n.Columns, &Column{Name: c.Name, Type: c.Type})
		}
		return
	}
	for _, c := range cols {
		if mine := n.column(c.Name); mine != nil {
			mine.Type = c.Type
		}
	}
}

func readRuns(ctx context.Context, sess adapters.Session, d adapters.Dialect, st plan.State) ([]Run, error) {
	q := "SELECT run_id, command, target, as_of, started_at, ended_at, outcome, succeeded, failed, skipped FROM " +
		d.Qualify(st.Runs) + " ORDER BY run_id DESC"
	_, rows, err := sess.Query(ctx, q, maxRuns)
	if err != nil {
		return nil, err
	}
	out := []Run{}
	for _, r := range rows {
		run := Run{RunID: r[0], Command: r[1], Target: nul(r[2]), AsOf: nul(r[3]), Started: nul(r[4]), Ended: nul(r[5]), Outcome: nul(r[6])}
		run.Succeeded, _ = strconv.Atoi(r[7])
		run.Failed, _ = strconv.Atoi(r[8])
		run.Skipped, _ = strconv.Atoi(r[9])
		out = append(out, run)
	}
	return out, nil
}

func nul(s string) string {
	if s == "NULL" {
		return ""
	}
	return s
}
