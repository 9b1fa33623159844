package statefuzz

import (
	"context"
	"fmt"
	"strconv"

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

// latestDiffs checks idemc_latest against the audit table's ranking once a
// run ended by itself: a unit's latest row says succeeded only when its
// latest audit row is that success (same run and attempt), and a unit
// whose latest audit row succeeded has that row as its latest, or a later
// attempt that never wrote its audit row (a kill between the two running
// rows). Skipped while the table does not exist (drop_latest; the next run
// with work fills it from the audit table).
func (s *sequenceRun) latestDiffs(ctx context.Context, out Outcome) ([]Difference, error) {
	if out.RunID == "" || out.Signaled || out.Exit > 1 {
		return nil, nil
	}
	d := s.w.Dialect()
	st := plan.StateIn(s.w.Schemas.Target())
	top := func(t plan.Relation) string {
		return fmt.Sprintf(`SELECT job_name, partition_key, run_id, attempt, status FROM (
  SELECT job_name, partition_key, run_id, attempt, status, row_number() OVER (PARTITION BY job_name, partition_key ORDER BY attempt DESC, started_at DESC) AS r
  FROM %s
) AS x WHERE r = 1`, d.Qualify(t))
	}
	var audit, latest [][]string
	err := s.w.with(ctx, func(sess adapters.Session) error {
		if _, ok, err := sess.Relation(ctx, st.Latest); err != nil || !ok {
			return err
		}
		var err error
		if _, audit, err = sess.Query(ctx, top(st.Audit), 0); err != nil {
			return err
		}
		_, latest, err = sess.Query(ctx, top(st.Latest), 0)
		return err
	})
	if err != nil || latest == nil {
		return nil, err
	}
	byKey := func(rows [][]string) map[[2]string][]string {
		m := map[[2]string][]string{}
		for _, r := range rows {
			m[[2]string{r[0], r[1]}] = r
		}
		return m
	}
	a, l := byKey(audit), byKey(latest)
	var diffs []Difference
	for k, lr := range l {
		ar := a[k]
		if lr[4] == "succeeded" && (ar == nil || ar[2] != lr[2] || ar[3] != lr[3] || ar[4] != "succeeded") {
			diffs = append(diffs, Difference{Node: k[0], What: "latest", Detail: fmt.Sprintf("partition %q: idemc_latest says %v, the audit table's latest row is %v", k[1], lr[2:], ar)})
		}
	}
	for k, ar := range a {
		lr := l[k]
		same := lr != nil && lr[2] == ar[2] && lr[3] == ar[3] && lr[4] == ar[4]
		later := lr != nil && lr[4] != "succeeded" && atoi(lr[3]) > atoi(ar[3])
		if ar[4] == "succeeded" && !same && !later {
			diffs = append(diffs, Difference{Node: k[0], What: "latest", Detail: fmt.Sprintf("partition %q: the audit table's latest row is %v, idemc_latest has %v", k[1], ar[2:], lr)})
		}
	}
	return diffs, nil
}

func atoi(s string) int64 {
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}
