package statefuzz

import (
	"context"
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// auditDiffs checks a run's own audit rows once it ended by itself (exit 0
// or 1): none is left running, every unit the run attempted has exactly
// one row of the run, and a unit it never started has none. The runner
// commits the running rows of units ready together in one statement before
// they start and deletes those of units that never started (issue 18):
// a leaked or doubled row is a difference here.
func (s *sequenceRun) auditDiffs(ctx context.Context, out Outcome) ([]Difference, error) {
	if out.RunID == "" || out.Signaled || out.Exit > 1 {
		return nil, nil
	}
	d := s.w.Dialect()
	q := fmt.Sprintf("SELECT job_name, partition_key, status FROM %s WHERE run_id = %s",
		d.Qualify(plan.StateIn(s.w.Schemas.Target()).Audit), d.String(out.RunID))
	var rows [][]string
	err := s.w.with(ctx, func(sess adapters.Session) (err error) {
		_, rows, err = sess.Query(ctx, q, 0)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the audit rows of run %s: %w", out.RunID, err)
	}
	var diffs []Difference
	n := map[[2]string]int{}
	for _, r := range rows {
		n[[2]string{r[0], r[1]}]++
		if r[2] == "running" {
			diffs = append(diffs, Difference{Node: r[0], What: "audit", Detail: fmt.Sprintf("partition %q left running by run %s, which ended", r[1], out.RunID)})
		}
	}
	for node, parts := range out.Units {
		for part, status := range parts {
			want := 0
			if status == "succeeded" || status == "failed" || status == "interrupted" {
				want = 1
			}
			if got := n[[2]string{node, part}]; got != want {
				diffs = append(diffs, Difference{Node: node, What: "audit", Detail: fmt.Sprintf("partition %q (%s in run %s) has %d audit rows of the run, want %d", part, status, out.RunID, got, want)})
			}
		}
	}
	return diffs, nil
}
