package statefuzz

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Difference is one way idemc's warehouse is not what the rules of the
// package doc say it must be.
type Difference struct {
	Node   string // the seed or model ("" for the exit code)
	What   string // the class: exit, missing, present, kind, broken, columns, rows, merge, interrupt, lineage
	Detail string
}

func (d Difference) String() string {
	if d.Node == "" {
		return d.What + ": " + d.Detail
	}
	return fmt.Sprintf("%s: %s: %s", d.Node, d.What, d.Detail)
}

// Compare checks idemc's warehouse (got, after a command that exited with
// exit) against the oracle, given the warehouse as it was just before that
// command (prev). seen holds, per merge model, every key an oracle of this
// sequence has had (the merge contract, see the package doc).
func Compare(p *Project, got, prev Dump, exit int, o *OracleResult, seen map[string]map[string]bool) []Difference {
	var diffs []Difference
	if exit != o.Exit {
		diffs = append(diffs, Difference{What: "exit", Detail: fmt.Sprintf("idemc exited %d, a from-scratch build exits %d", exit, o.Exit)})
	}
	for _, node := range p.Nodes() {
		m := p.Model(node)
		switch {
		case o.succeeded(node) && m != nil && m.Kind == KindMerge:
			diffs = append(diffs, compareMerge(node, m.Key, got[node], o.Dump[node], seen[node])...)
		case o.succeeded(node):
			diffs = append(diffs, compareExact(node, got[node], o.Dump[node])...)
			// Every row was written with the files' lineage setting (a
			// unit is stale when it changes); not so for a merge's kept
			// keys, nor where a unit failed and the old rows stay.
			if g := got[node]; g != nil && g.Lineage != "" {
				diffs = append(diffs, Difference{node, "lineage", g.Lineage})
			}
		case kindChanged(got[node], prev[node]):
			diffs = append(diffs, Difference{node, "kind", fmt.Sprintf("a from-scratch build fails here, so the previous relation must stay: it was %s, idemc has %s", prev[node].text(), got[node].text())})
		case viewRel(got[node]) && viewRel(prev[node]):
			// The failed or skipped unit left the view in place: a view
			// holds no rows of its own, it shows its inputs as they are
			// now (a seed reloaded in the same build), so its rows have
			// no previous state to keep.
		case m != nil && m.Partitioned():
			diffs = append(diffs, comparePartitions(node, got[node], prev[node], o)...)
		default:
			// The oracle's unit failed or was skipped: idemc's must have
			// failed or been skipped too, leaving the previous state.
			if d := compareRows(got[node], prev[node], nil); d != "" {
				diffs = append(diffs, Difference{node, "rows", "a from-scratch build fails here, so the previous state must stay: " + d})
			}
		}
	}
	return diffs
}

// kindChanged reports a relation that was a view and is a table now, or
// the other way round.
func kindChanged(got, prev *Rel) bool {
	return got != nil && prev != nil && got.Exists && prev.Exists && got.View != prev.View
}

func viewRel(r *Rel) bool { return r != nil && r.Exists && r.View }

func compareExact(node string, got, want *Rel) []Difference {
	switch {
	case want.Exists && !got.Exists:
		return []Difference{{node, "missing", "a from-scratch build has " + want.text()}}
	case !want.Exists && got.Exists:
		return []Difference{{node, "present", "a from-scratch build has no such relation; idemc has " + got.text()}}
	case want.View != got.View:
		return []Difference{{node, "kind", fmt.Sprintf("idemc: %s; rebuild: %s", got.text(), want.text())}}
	case want.Broken != got.Broken:
		return []Difference{{node, "broken", fmt.Sprintf("idemc: %s; rebuild: %s", got.text(), want.text())}}
	case !slices.Equal(got.Cols, want.Cols):
		return []Difference{{node, "columns", fmt.Sprintf("idemc has [%s], a from-scratch build [%s]", strings.Join(got.Cols, ", "), strings.Join(want.Cols, ", "))}}
	}
	if d := compareRows(got, want, nil); d != "" {
		return []Difference{{node, "rows", d}}
	}
	return nil
}

// compareMerge applies the merge contract: on the keys the rebuild has,
// idemc has exactly the rebuild's rows; any other key idemc keeps must have
// been produced by an earlier version of the files in this sequence.
func compareMerge(node string, key []string, got, want *Rel, seen map[string]bool) []Difference {
	if !got.Exists || !want.Exists || got.Broken != "" || !slices.Equal(got.Cols, want.Cols) {
		return compareExact(node, got, want)
	}
	wantKeys := keySet(want, key)
	var extra []string
	keep := func(row []string) bool {
		k := rowKey(got, key, row)
		if !wantKeys[k] && !seen[k] {
			extra = append(extra, k)
		}
		return wantKeys[k]
	}
	if d := compareRows(got, want, keep); d != "" {
		return []Difference{{node, "rows", "on the rebuild's keys: " + d}}
	}
	if len(extra) > 0 {
		return []Difference{{node, "merge", fmt.Sprintf("keys %v were never in any version's output", extra)}}
	}
	return nil
}

func keySet(r *Rel, key []string) map[string]bool {
	out := map[string]bool{}
	for _, row := range r.Rows {
		out[rowKey(r, key, row)] = true
	}
	return out
}

func rowKey(r *Rel, key []string, row []string) string {
	parts := make([]string, len(key))
	for i, k := range key {
		if c := r.column(k); c >= 0 {
			parts[i] = row[c]
		}
	}
	return strings.Join(parts, "|")
}

// comparePartitions is the rule for a partitioned model some of whose
// oracle units failed: partitions the oracle built must equal the oracle's,
// the others must keep idemc's previous rows.
func comparePartitions(node string, got, prev *Rel, o *OracleResult) []Difference {
	units := o.Units[node]
	ok := func(row []string, r *Rel) bool {
		c := r.column("day")
		// Drivers print a date as 2026-07-04 or 2026-07-04 00:00:00;
		// partition keys are the first form.
		return c >= 0 && len(row[c]) >= 10 && units[row[c][:10]] == "succeeded"
	}
	if d := compareRows(got, o.Dump[node], func(row []string) bool { return ok(row, got) }); d != "" {
		return []Difference{{node, "rows", "in the partitions a from-scratch build writes: " + d}}
	}
	if d := compareRows(got, prev, func(row []string) bool { return !ok(row, got) }); d != "" {
		return []Difference{{node, "rows", "in the partitions a from-scratch build fails, the previous rows must stay: " + d}}
	}
	return nil
}

// compareRows compares the rows of got (those keep accepts; all when nil)
// with want's rows of the same partitions/keys, on the columns both have; a
// missing relation counts as empty. It returns "" when equal.
func compareRows(got, want *Rel, keep func([]string) bool) string {
	g, w := orEmpty(got), orEmpty(want)
	var common []string
	for _, n := range g.Names {
		if w.column(n) >= 0 {
			common = append(common, n)
		}
	}
	project := func(r *Rel, sel func([]string) bool) []string {
		var out []string
		for _, row := range r.Rows {
			if sel != nil && !sel(row) {
				continue
			}
			vals := make([]string, len(common))
			for i, n := range common {
				vals[i] = row[r.column(n)]
			}
			out = append(out, strings.Join(vals, " | "))
		}
		sort.Strings(out)
		return out
	}
	gotRows := project(g, keep)
	// keep is written against got's columns; apply it to want's rows by
	// re-indexing them into got's column order.
	var wantSel func([]string) bool
	if keep != nil {
		wantSel = func(row []string) bool { return keep(reorder(row, w, g)) }
	}
	wantRows := project(w, wantSel)
	if slices.Equal(gotRows, wantRows) {
		return ""
	}
	return fmt.Sprintf("on columns [%s]\n    idemc:   %s\n    expected: %s", strings.Join(common, ", "), rowList(gotRows), rowList(wantRows))
}

func orEmpty(r *Rel) *Rel {
	if r == nil || !r.Exists || r.Broken != "" {
		return &Rel{}
	}
	return r
}

// reorder returns a row of from laid out in to's columns (missing: "").
func reorder(row []string, from, to *Rel) []string {
	out := make([]string, len(to.Names))
	for i, n := range to.Names {
		if c := from.column(n); c >= 0 {
			out[i] = row[c]
		}
	}
	return out
}

func rowList(rows []string) string {
	if len(rows) == 0 {
		return "(no rows)"
	}
	if len(rows) > 10 {
		rows = append(rows[:10:10], "…")
	}
	return strings.Join(rows, "\n              ")
}
