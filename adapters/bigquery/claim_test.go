package bigquery

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/runner"
)

// claimKey is the unit claim of auditProject's partition 2026-07-02.
const claimKey = "`analytics`.`events_daily`/2026-07-02"

// TestUnitClaimJobs: a BigQuery unit claims its key in idemc_locks before
// its script, as jobs of their own (the lock table created with the run's
// heartbeats; the claim, a MERGE; the holder read), and releases it after;
// the run's end deletes its rows. A key held by a live run of another host
// (a recent heartbeat) is waited for until released; one held by a run
// without a heartbeat is taken over (its row deleted, the claim made
// again). Every case leaves the lock table empty.
func TestUnitClaimJobs(t *testing.T) {
	cases := []struct {
		name, holder string
		beat         bool          // the holder has a recent heartbeat
		releaseAfter time.Duration // the holder releases then
		note         string        // in the unit's note
		takeover     bool
	}{
		{name: "acquire and release"},
		{name: "waits for a live run", holder: "other", beat: true, releaseAfter: 1500 * time.Millisecond, note: "waited"},
		{name: "takes over a dead run", holder: "dead", takeover: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFakeBigQuery(t)
			onFake(t, f)
			f.rows = func(sql string) ([]string, [][]string) {
				if c.beat && strings.Contains(sql, "idemc_heartbeats") && strings.Contains(sql, "'"+c.holder+"'") {
					return []string{"host", "pid"}, [][]string{{"elsewhere", "7"}}
				}
				return []string{"n"}, nil
			}
			if c.holder != "" {
				f.locks.Set(claimKey, c.holder)
			}
			if c.releaseAfter > 0 {
				time.AfterFunc(c.releaseAfter, func() {
					f.locks.Answer("DELETE FROM `analytics`.`idemc_locks` WHERE run_id = '" + c.holder + "'")
				})
			}
			var out strings.Builder
			res, err := runner.Build(context.Background(), auditProject(t), runner.Options{Out: &out,
				Compile: compiler.Options{Start: "2026-07-02", End: "2026-07-03", Models: true}})
			if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
				t.Fatalf("want the unit succeeded, got %+v (%v)\n%s", res.Units, err, out.String())
			}
			if !strings.Contains(res.Units[0].Note, c.note) {
				t.Errorf("note %q, want %q", res.Units[0].Note, c.note)
			}
			var seq []string
			for _, j := range f.submitted() {
				switch q := strings.TrimSpace(j.SQL); {
				case strings.HasPrefix(q, "CREATE TABLE IF NOT EXISTS `analytics`.`idemc_locks`"):
					seq = append(seq, "create")
				case strings.HasPrefix(q, "MERGE INTO `analytics`.`idemc_locks`") && strings.Contains(q, claimKey):
					seq = append(seq, "claim")
				case strings.HasPrefix(q, "SELECT run_id FROM `analytics`.`idemc_locks`"):
					seq = append(seq, "holder")
				case strings.HasPrefix(q, "DELETE FROM `analytics`.`idemc_locks` WHERE lock_key") && c.holder != "" && strings.Contains(q, "'"+c.holder+"'"):
					seq = append(seq, "takeover")
				case strings.HasPrefix(q, "DELETE FROM `analytics`.`idemc_locks` WHERE lock_key"):
					seq = append(seq, "release")
				case strings.HasPrefix(q, "DELETE FROM `analytics`.`idemc_locks` WHERE run_id"):
					seq = append(seq, "run end")
				case strings.HasPrefix(q, "BEGIN TRANSACTION"):
					seq = append(seq, "script")
				}
			}
			got := strings.Join(compact(seq), " ")
			want := "create claim holder script release run end"
			switch {
			case c.takeover:
				want = "create claim holder takeover claim holder script release run end"
			case c.releaseAfter > 0:
				want = "create claim holder (claim holder)+ script release run end"
			}
			if got != want {
				t.Errorf("lock table jobs:\n got %s\nwant %s", got, want)
			}
			if n := f.locks.Len(); n != 0 {
				t.Errorf("%d keys still claimed after the run", n)
			}
		})
	}
}

// compact writes the repeats of a claim's wait ("claim holder" again and
// again) as one "(claim holder)+".
func compact(seq []string) []string {
	var out []string
	for i := 0; i < len(seq); i++ {
		if i+1 < len(seq) && seq[i] == "claim" && seq[i+1] == "holder" && len(out) >= 2 && (out[len(out)-1] == "holder" || out[len(out)-1] == "(claim holder)+") && out[len(out)-2] != "takeover" {
			if out[len(out)-1] != "(claim holder)+" {
				out = append(out, "(claim holder)+")
			}
			i++
			continue
		}
		out = append(out, seq[i])
	}
	return out
}
