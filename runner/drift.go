package runner

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// DriftRow is a unit whose latest finished attempt broke a drift rule
// (idemc status --drift): a warned one committed, an error one failed and
// left the previous rows.
type DriftRow struct {
	Model     string   `json:"model"`
	Partition string   `json:"partition"`
	Rows      int64    `json:"row_count"`
	Median    *float64 `json:"median"` // nil for zero_rows
	Ratio     *float64 `json:"ratio"`  // nil for zero_rows, or a median of 0
	Rule      string   `json:"rule"`
	Severity  string   `json:"severity"`
	Status    string   `json:"status"` // the unit's: succeeded (warned) or failed
	RunID     string   `json:"run_id"`
}

// Drift reads the selected models' units out of bounds from the audit
// table: the drift checks their latest finished rows record as warned or
// failed, with the evidence the check query returned. Read-only.
func Drift(ctx context.Context, p *project.Project, opts compiler.Options) ([]DriftRow, error) {
	opts.Models = false
	opts.LintOnly = true
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, err
	}
	c, err := openExisting(ctx, p, opts.Target)
	if errors.Is(err, ErrNoWarehouse) {
		return nil, nil // nothing has run
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st := stateOf(p, pl.Target)
	if _, ok, err := c.sess.Relation(ctx, st.Audit); err != nil || !ok {
		return nil, err // nothing has run
	}
	if st, err = readable(ctx, c.sess, c.ad.Dialect, st); err != nil {
		return nil, err
	}
	jobs, _ := statusFilter(pl, opts)
	_, rows, err := c.sess.Query(ctx, sqlgen.DriftStatusQuery(c.ad.Dialect, st, jobs), 0)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{}
	for _, n := range pl.Selected {
		chosen[n] = true
	}
	var out []DriftRow
	for _, r := range rows {
		if node := pl.Nodes[r[0]]; !chosen[r[0]] || node == nil || !inRange(r[1], node, opts) {
			continue
		}
		var checks []CheckResult
		if json.Unmarshal([]byte(r[5]), &checks) != nil {
			continue
		}
		n, _ := strconv.ParseInt(r[3], 10, 64)
		for _, ck := range checks {
			if !strings.HasPrefix(ck.Name, plan.DriftPrefix) || ck.Status != CheckWarn && ck.Status != CheckFail {
				continue
			}
			d := DriftRow{Model: r[0], Partition: r[1], Rows: n, Rule: ck.Name, Severity: ck.Severity, Status: r[2], RunID: r[4]}
			if len(ck.Sample) > 0 {
				ev := sampleValues(ck.Sample[0])
				if v, ok := ev["row_count"]; ok {
					d.Rows = int64(*v)
				}
				d.Median, d.Ratio = ev["median"], ev["ratio"]
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// sampleValues reads a check's sample row, "(row_count=3, median=10.0,
// ratio=0.3)", into numbers; NULL and text are left out.
func sampleValues(s string) map[string]*float64 {
	out := map[string]*float64{}
	for _, kv := range strings.Split(strings.Trim(s, "()"), ", ") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
			f = math.Round(f*1000) / 1000 // the ratio's engines print 15 digits
			out[k] = &f
		}
	}
	return out
}
