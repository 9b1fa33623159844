package runner

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"time"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// StatusRow is the latest audit row of one unit.
type StatusRow struct {
	Model     string `json:"model"`
	Partition string `json:"partition"`
	Status    string `json:"status"`
	Rows      *int64 `json:"rows"`
	Attempt   int64  `json:"attempt"`
	Started   string `json:"started_at"`
	Ended     string `json:"ended_at,omitempty"`
	RunID     string `json:"run_id"`
	CodeHash  string `json:"code_hash"`
	Current   bool   `json:"current_code"` // the row's code hash is the model's current one
	Error     string `json:"error,omitempty"`
}

// Status reads the latest audit row of each selected model's units. A
// partitioned model also lists the partitions of [start, end) that have no
// row at all, as "missing". Read-only.
func Status(ctx context.Context, p *project.Project, opts compiler.Options) ([]StatusRow, error) {
	opts.Models = false
	opts.LintOnly = true // a finding does not hide what has been loaded
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
	sess, st := c.sess, stateOf(p, pl.Target)
	if _, ok, err := sess.Relation(ctx, st.Audit); err != nil || !ok {
		return nil, err // no audit table yet: nothing has run
	}
	if st, err = readable(ctx, sess, c.ad.Dialect, st); err != nil {
		return nil, err
	}
	jobs, parts := statusFilter(pl, opts)
	_, rows, err := sess.Query(ctx, sqlgen.StatusQueryOf(c.ad.Dialect, st, jobs, parts), 0)
	if err != nil {
		return nil, err
	}
	chosen := map[string]bool{}
	for _, n := range pl.Selected {
		chosen[n] = true
	}
	seen := map[[2]string]bool{}
	var out []StatusRow
	for _, r := range rows {
		node := pl.Nodes[r[0]]
		if !chosen[r[0]] || node == nil || !inRange(r[1], node, opts) {
			continue
		}
		sr := StatusRow{Model: r[0], Partition: r[1], Status: r[2], Started: rfc3339(r[5]), RunID: r[7], CodeHash: r[8], Current: r[8] == node.CodeHash}
		if r[3] != "NULL" {
			n, _ := strconv.ParseInt(r[3], 10, 64)
			sr.Rows = &n
		}
		sr.Attempt, _ = strconv.ParseInt(r[4], 10, 64)
		if r[6] != "NULL" {
			sr.Ended = rfc3339(r[6])
		}
		if r[9] != "NULL" {
			sr.Error = r[9]
		}
		seen[[2]string{r[0], r[1]}] = true
		out = append(out, sr)
	}
	// Partitions asked about that never ran.
	for _, n := range pl.Selected {
		node := pl.Nodes[n]
		if node.PartitionBy == "" || node.Materialized != "incremental" {
			continue
		}
		for _, key := range askedPartitions(node, opts) {
			if !seen[[2]string{n, key}] {
				out = append(out, StatusRow{Model: n, Partition: key, Status: "missing"})
			}
		}
	}
	sortStatus(out)
	return out, nil
}

// askedPartitions are the partitions named by --partition or --start/--end.
func askedPartitions(node *plan.Node, opts compiler.Options) []string {
	g := node.Granularity
	if opts.Partition != "" {
		if t, err := partition.Parse(opts.Partition, g); err == nil {
			return []string{partition.Key(t, g)}
		}
		return nil
	}
	if opts.Start == "" || opts.End == "" {
		return nil
	}
	a, err1 := partition.ParseTime(opts.Start)
	b, err2 := partition.ParseTime(opts.End)
	if err1 != nil || err2 != nil {
		return nil
	}
	var keys []string
	for _, w := range partition.Range(a, b, g) {
		keys = append(keys, w.Key)
	}
	return keys
}

func inRange(key string, node *plan.Node, opts compiler.Options) bool {
	if opts.Partition == "" && opts.Start == "" {
		return true
	}
	if node.PartitionBy == "" {
		return false
	}
	for _, k := range askedPartitions(node, opts) {
		if k == key {
			return true
		}
	}
	return false
}

func sortStatus(rows []StatusRow) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Model != rows[j].Model {
			return rows[i].Model < rows[j].Model
		}
		return rows[i].Partition < rows[j].Partition
	})
}

// rfc3339 prints an engine's timestamp text in RFC 3339, UTC (the audit
// table's timestamps are UTC); text it cannot read is kept.
func rfc3339(s string) string {
	if t := parseTime(s); !t.IsZero() {
		return t.UTC().Format(time.RFC3339)
	}
	return s
}

// maxStatusFilter bounds the names one status query lists; a larger
// selection reads every unit's latest row.
const maxStatusFilter = 1000

// statusFilter is what the status query reads: the selected models' rows
// (when the selection is not the whole project), and with --partition only
// that partition's (and the unpartitioned models' empty key), so that the status
// of one partition costs that partition's audit rows (issue 18).
func statusFilter(pl *plan.Plan, opts compiler.Options) (jobs, parts []string) {
	if len(pl.Selected) < len(pl.Nodes) && len(pl.Selected) <= maxStatusFilter {
		jobs = append([]string{}, pl.Selected...)
	}
	if opts.Partition == "" {
		return jobs, nil
	}
	keys := map[string]bool{"": true}
	for _, n := range pl.Selected {
		if node := pl.Nodes[n]; node != nil {
			for _, k := range askedPartitions(node, opts) {
				keys[k] = true
			}
		}
	}
	for k := range keys {
		parts = append(parts, k)
	}
	sort.Strings(parts)
	return jobs, parts
}
