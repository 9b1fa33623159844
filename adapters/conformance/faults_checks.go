package conformance

// What the fault suite checks after a fault and after the rebuild, and its
// summary.

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runStatus is the status of a unit's audit row written by one run ("" when
// there is none).
func (s *faultSuite) runStatus(t *testing.T, e *env, unit, runID string) string {
	model, part, _ := strings.Cut(unit, "/")
	rows := e.query(fmt.Sprintf("SELECT status FROM %s WHERE job_name = %s AND partition_key = %s AND run_id = %s", e.rel("idemc_audit"), e.d.String(model), e.d.String(part), e.d.String(runID)))
	if len(rows) == 0 {
		return ""
	}
	return rows[0][0]
}

// checkAfterFault: every region is in its previous state (fresh: empty;
// rebuild: the clean contents) or complete, and the audit agrees.
func (s *faultSuite) checkAfterFault(t *testing.T, after *snapshot, rebuild bool, failUnit string, postCommit bool) {
	t.Helper()
	if rebuild {
		if d := after.diff(s.ref); d != "" {
			t.Errorf("a fault during a rebuild changed the data (the previous state was the clean contents): %s", d)
		}
	} else {
		for _, ft := range faultTables {
			if ft.view {
				continue
			}
			got, want := after.tables[ft.name], s.ref.tables[ft.name]
			for part, fp := range got {
				if fp != want[part] {
					t.Errorf("%s partition %q is half written after the fault:\n got: %.300s\nwant: %.300s", ft.name, part, fp, want[part])
				}
			}
			if ft.part == "" && len(got) > 0 && len(got) != len(want) {
				t.Errorf("%s is half written after the fault", ft.name)
			}
		}
		if failUnit != "" && !postCommit {
			model, part, _ := strings.Cut(failUnit, "/")
			if _, ok := after.tables[model][part]; ok {
				t.Errorf("the failed unit %s left data behind", failUnit)
			}
		}
	}
	for _, ft := range faultTables {
		if after.dups[ft.name] != "" {
			t.Errorf("%s has duplicate rows after the fault: %s", ft.name, after.dups[ft.name])
		}
	}
	s.checkAudit(t, after, false)
}

// checkAudit: every succeeded row's region holds the clean contents (and as
// many rows as it recorded); after a rerun no row is left running.
func (s *faultSuite) checkAudit(t *testing.T, sn *snapshot, final bool) {
	t.Helper()
	tables := map[string]faultTable{}
	for _, ft := range faultTables {
		tables[ft.model] = ft
	}
	for _, a := range sn.audit {
		if final && a.status == "running" {
			t.Errorf("audit row left running after the rerun: %s/%s attempt %s (run %s)", a.job, a.part, a.attempt, a.run)
		}
		if a.status != "succeeded" {
			continue
		}
		ft, ok := tables[a.job]
		if !ok || ft.view {
			continue
		}
		got, want := sn.tables[ft.name], s.ref.tables[ft.name]
		if ft.part != "" {
			if got[a.part] != want[a.part] {
				t.Errorf("audit says %s/%s succeeded (run %s) but its partition is %s", a.job, a.part, a.run, describePart(got, a.part))
			} else if a.rows != "" && a.rows != "NULL" && a.rows != strconv.Itoa(sn.counts[ft.name][a.part]) {
				t.Errorf("audit says %s/%s succeeded with %s rows, the partition has %d", a.job, a.part, a.rows, sn.counts[ft.name][a.part])
			}
			continue
		}
		if !sameParts(got, want) {
			t.Errorf("audit says %s succeeded (run %s) but the table is %s", a.job, a.run, describeTable(got))
		}
	}
}

func describePart(parts map[string]string, p string) string {
	if parts == nil {
		return "missing (no table)"
	}
	if _, ok := parts[p]; !ok {
		return "empty"
	}
	return "different from a clean run"
}

func describeTable(parts map[string]string) string {
	if parts == nil {
		return "missing"
	}
	if len(parts) == 0 {
		return "empty"
	}
	return "different from a clean run"
}

func sameParts(a, b map[string]string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func (s *faultSuite) summary() {
	kinds := make([]string, 0, len(s.outcomes))
	total := 0
	for _, k := range s.kinds {
		if s.outcomes[k] == nil {
			continue
		}
		var parts []string
		n := 0
		for o, c := range s.outcomes[k] {
			parts = append(parts, fmt.Sprintf("%s %d", o, c))
			n += c
		}
		sort.Strings(parts)
		total += n
		kinds = append(kinds, fmt.Sprintf("%s %d (%s)", k, n, strings.Join(parts, ", ")))
	}
	var fired []string
	for _, p := range allPurposes {
		if s.fired[p] > 0 {
			fired = append(fired, string(p))
		}
	}
	s.t.Logf("SUMMARY %s: %d trials (%d in the step sweep, %d random) in %v, seed %d: %s; external kills mid-statement %d; failures injected at: %s; recovered %d/%d",
		s.tgt.Engine, total, s.swept, total-s.swept, time.Since(s.started).Round(100*time.Millisecond), s.o.Seed, strings.Join(kinds, "; "), s.midStmt,
		strings.Join(fired, ", "), s.recovered, total)
	for _, p := range allPurposes {
		if len(s.missed[p]) > 0 && s.fired[p] == 0 {
			s.t.Errorf("IDEMC_FAULT rule fail:<unit>:%s never fired although %s ran with a %s step: the runner does not call the fault hook after %s steps, so a failure there is never tested",
				p, strings.Join(s.missed[p], ", "), p, p)
		}
	}
}
