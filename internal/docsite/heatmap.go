package docsite

import (
	"sort"
	"time"

	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// maxCells bounds a heatmap to its newest partitions (an hourly model of a
// year has 8,760); Total and Counts still count them all.
const maxCells = 400

// Heatmap is the status of every partition of a model from its start to
// the logical time, and of any partition the audit table has beyond.
type Heatmap struct {
	Granularity string         `json:"granularity"`
	Cells       []Cell         `json:"cells"` // oldest first; the newest maxCells
	Total       int            `json:"total"`
	Counts      map[string]int `json:"counts"` // by status
}

// Cell is one unit's latest audit row, or a partition with none (missing).
type Cell struct {
	Partition string `json:"partition"`
	Status    string `json:"status"` // succeeded, failed, running, abandoned, missing
	Rows      *int64 `json:"rows,omitempty"`
	RunID     string `json:"run_id,omitempty"`
	Attempt   int64  `json:"attempt,omitempty"`
	Ended     string `json:"ended_at,omitempty"`
	Error     string `json:"error,omitempty"`
	// Stale marks a success by code that has changed since: the next
	// build reruns it.
	Stale bool `json:"stale,omitempty"`
}

// StatusMissing is a partition with no audit row.
const StatusMissing = "missing"

// fillStatus sets each model's heatmap (partitioned incremental models) or
// latest row (the others) from the audit table's latest rows.
func fillStatus(s *Site, p *project.Project, pl *plan.Plan, rows []runner.StatusRow, asOf time.Time) {
	first := map[string]time.Time{}
	for _, m := range p.Models {
		first[m.Name] = m.FirstPartition
	}
	byModel := map[string][]runner.StatusRow{}
	for _, r := range rows {
		byModel[r.Model] = append(byModel[r.Model], r)
	}
	for _, n := range s.Nodes {
		pn := pl.Nodes[n.Name]
		if pn == nil {
			continue
		}
		if pn.PartitionBy == "" || pn.Materialized != plan.Incremental {
			for _, r := range byModel[n.Name] {
				if r.Partition == "" {
					c := cellOf(r)
					n.Latest = &c
				}
			}
			continue
		}
		n.Partitions = heatmap(byModel[n.Name], first[n.Name], asOf, pn.Granularity)
	}
}

func heatmap(rows []runner.StatusRow, first, asOf time.Time, gran string) *Heatmap {
	cells := map[string]Cell{}
	if !first.IsZero() {
		for _, w := range partition.Range(first, asOf, gran) {
			cells[w.Key] = Cell{Partition: w.Key, Status: StatusMissing}
		}
	}
	for _, r := range rows {
		if r.Partition != "" {
			cells[r.Partition] = cellOf(r)
		}
	}
	h := &Heatmap{Granularity: gran, Cells: []Cell{}, Total: len(cells), Counts: map[string]int{}}
	for _, c := range cells {
		h.Cells = append(h.Cells, c)
		h.Counts[c.Status]++
	}
	// Canonical keys of one granularity sort as their times do.
	sort.Slice(h.Cells, func(i, j int) bool { return h.Cells[i].Partition < h.Cells[j].Partition })
	if len(h.Cells) > maxCells {
		h.Cells = h.Cells[len(h.Cells)-maxCells:]
	}
	return h
}

func cellOf(r runner.StatusRow) Cell {
	return Cell{Partition: r.Partition, Status: r.Status, Rows: r.Rows, RunID: r.RunID, Attempt: r.Attempt,
		Ended: r.Ended, Error: r.Error, Stale: r.Status == "succeeded" && !r.Current}
}
