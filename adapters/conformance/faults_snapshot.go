package conformance

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// snapshot is what the suite compares: each table's contents by partition
// ("" for an unpartitioned table; a nil map when the relation is missing),
// row counts, duplicate keys and the audit rows.
type snapshot struct {
	// relations are the names of every table and view of the trial's two
	// schemas ("raw." before the seeds' schema).
	relations []string
	tables    map[string]map[string]string
	counts    map[string]map[string]int
	dups      map[string]string
	audit     []auditRow
	// marks are the watermark models' high-water marks (idemc_state).
	marks string
}

type auditRow struct {
	job, part, status, rows, run, attempt string
}

// diff describes the first differences from want ("" when equal).
func (sn *snapshot) diff(want *snapshot) string {
	var out []string
	for _, ft := range faultTables {
		got, w := sn.tables[ft.name], want.tables[ft.name]
		if sameParts(got, w) {
			continue
		}
		if got == nil {
			out = append(out, ft.name+" is missing")
			continue
		}
		var parts []string
		for p := range w {
			if got[p] != w[p] {
				parts = append(parts, fmt.Sprintf("%q: %s", p, describePart(got, p)))
			}
		}
		for p := range got {
			if _, ok := w[p]; !ok {
				parts = append(parts, fmt.Sprintf("%q: not in a clean run", p))
			}
		}
		sort.Strings(parts)
		if len(parts) > 4 {
			parts = append(parts[:4], "…")
		}
		out = append(out, ft.name+" ("+strings.Join(parts, ", ")+")")
	}
	for _, ft := range faultTables {
		if sn.dups[ft.name] != "" {
			out = append(out, ft.name+" has duplicate keys: "+sn.dups[ft.name])
		}
	}
	return strings.Join(out, "; ")
}

// snap reads every table of the env, on one connection.
func (s *faultSuite) snap(t *testing.T, e *env) *snapshot {
	t.Helper()
	ctx := context.Background()
	ad, _ := adapters.Lookup(s.tgt.Engine)
	eng, err := ad.Open(ctx, s.tgt.Settings(e.dir))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	d := ad.Dialect
	sn := &snapshot{tables: map[string]map[string]string{}, counts: map[string]map[string]int{}, dups: map[string]string{}}
	exists := map[string]bool{}
	rels, err := adapters.ListRelations(ctx, sess, d, []string{strings.ToLower(e.schema), strings.ToLower(e.schema) + "_raw"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		sc, name := strings.ToLower(r[0]), strings.ToLower(r[1])
		exists[sc+"."+name] = true
		switch sc {
		case strings.ToLower(e.schema):
			sn.relations = append(sn.relations, name)
		case strings.ToLower(e.schema) + "_raw":
			sn.relations = append(sn.relations, "raw."+name)
		}
	}
	sort.Strings(sn.relations)
	for _, ft := range faultTables {
		schema := e.schema
		if ft.raw {
			schema += "_raw"
		}
		if !exists[strings.ToLower(schema)+"."+ft.name] {
			continue
		}
		rel := d.Qualify(plan.Relation{Schema: schema, Name: ft.name})
		var parts map[string]string
		var counts map[string]int
		if ft.big {
			parts, counts = snapBig(t, ctx, sess, d, sn, ft, rel)
		} else {
			parts, counts = snapRows(t, ctx, sess, sn, ft, rel)
		}
		sn.tables[ft.name], sn.counts[ft.name] = parts, counts
	}
	if exists[strings.ToLower(e.schema)+".idemc_state"] {
		_, rows, err := sess.Query(ctx, "SELECT job_name, high_water FROM "+d.Qualify(plan.Relation{Schema: e.schema, Name: "idemc_state"})+" ORDER BY job_name, high_water", 0)
		if err != nil {
			t.Fatal(err)
		}
		sn.marks = strings.Join(flatten(rows), "; ")
	}
	if exists[strings.ToLower(e.schema)+".idemc_audit"] {
		_, rows, err := sess.Query(ctx, "SELECT job_name, partition_key, status, row_count, run_id, attempt FROM "+d.Qualify(plan.Relation{Schema: e.schema, Name: "idemc_audit"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		sn.audit = attemptRows(rows)
	}
	return sn
}

// snapBig summarizes a big table by partition: rows, distinct keys, sums
// and the keys' range (its rows are too many to compare one by one).
func snapBig(t *testing.T, ctx context.Context, sess adapters.Session, d adapters.Dialect, sn *snapshot, ft faultTable, rel string) (map[string]string, map[string]int) {
	t.Helper()
	parts, counts := map[string]string{}, map[string]int{}
	p, k, v := d.Quote(ft.part), d.Quote(ft.key), d.Quote("v")
	_, rows, err := sess.Query(ctx, fmt.Sprintf("SELECT %s, count(*), count(DISTINCT %s), sum(%s), sum(%s), min(%s), max(%s) FROM %s GROUP BY %s", p, k, k, v, k, k, rel, p), 0)
	if err != nil {
		t.Fatalf("%s: %v", ft.name, err)
	}
	for _, r := range rows {
		key := partKey(r[0])
		parts[key] = strings.Join(r[1:], "\t")
		counts[key], _ = strconv.Atoi(r[1])
		if r[1] != r[2] {
			sn.dups[ft.name] += fmt.Sprintf("partition %s: %s rows, %s distinct keys; ", key, r[1], r[2])
		}
	}
	return parts, counts
}

// snapRows reads a table's rows by partition, sorted, and notes its
// duplicate keys.
func snapRows(t *testing.T, ctx context.Context, sess adapters.Session, sn *snapshot, ft faultTable, rel string) (map[string]string, map[string]int) {
	t.Helper()
	parts, counts := map[string]string{}, map[string]int{}
	cols, rows, err := sess.Query(ctx, "SELECT * FROM "+rel, 0)
	if err != nil {
		t.Fatalf("%s: %v", ft.name, err)
	}
	pi, ki := -1, -1
	for i, c := range cols {
		if strings.EqualFold(c, ft.part) {
			pi = i
		}
		if strings.EqualFold(c, ft.key) {
			ki = i
		}
	}
	lines := map[string][]string{}
	keys := map[string]int{}
	for _, r := range rows {
		key := ""
		if pi >= 0 {
			key = partKey(r[pi])
		}
		lines[key] = append(lines[key], strings.Join(r, "\t"))
		counts[key]++
		if ki >= 0 {
			keys[r[ki]]++
		}
	}
	for key, ls := range lines {
		sort.Strings(ls)
		parts[key] = strings.Join(ls, "\n")
	}
	for k, n := range keys {
		if n > 1 {
			sn.dups[ft.name] += fmt.Sprintf("%s=%s ×%d; ", ft.key, k, n)
		}
	}
	return parts, counts
}

// attemptRows is one audit row per unit attempt (run, job, partition,
// attempt), its final one: an append-only audit (Spark) records an attempt
// as a running row and then a final row (succeeded, failed, or abandoned
// by a later run); an updating audit has the one row.
func attemptRows(rows [][]string) []auditRow {
	var out []auditRow
	at := map[[4]string]int{}
	for _, r := range rows {
		a := auditRow{job: r[0], part: r[1], status: r[2], rows: r[3], run: r[4], attempt: r[5]}
		k := [4]string{a.run, a.job, a.part, a.attempt}
		i, seen := at[k]
		switch {
		case !seen:
			at[k] = len(out)
			out = append(out, a)
		case out[i].status == "running":
			out[i] = a
		}
	}
	return out
}

// partKey is the canonical day key of a partition value's text.
func partKey(v string) string {
	if len(v) >= 10 {
		return v[:10]
	}
	return v
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
