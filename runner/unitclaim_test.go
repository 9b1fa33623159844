package runner

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// claimRun is a run of one partition unit on engine's dialect (a unit
// claim) over the fake server, whose other runs' liveness comes from
// their heartbeats (beats: run id → host, pid); on this host ("here")
// only pid 1 is alive.
func claimRun(t *testing.T, engine string, srv *fakeServer, beats map[string][][]string, hook StepHook) (*run, *plan.Unit, string) {
	t.Helper()
	r, u := fakeRun(t, engine, "delete_insert", srv, hook)
	r.beats = &heartbeats{eng: &beatEngine{beatsFor: beats}, sql: r.d.(adapters.HeartbeatSQL), state: r.state, host: "here",
		timeout: time.Minute, now: time.Now, alive: func(pid int) bool { return pid == 1 }}
	key := r.d.(interface{ ClaimKey(*plan.Write) string }).ClaimKey(u.Write)
	return r, u, key
}

// TestUnitClaim: on an engine without session locks a unit claims its key
// in idemc_locks before writing: it waits while another live run holds
// it and goes on once that run releases it; it fails as locked by another
// run, with nothing written, when the holder stays alive past the wait;
// it takes over the claim of a dead run (no recent heartbeat, or one from
// a process of this host that is gone); and it releases its claim
// however it ends.
func TestUnitClaim(t *testing.T) {
	other := map[string][][]string{"other": {{"elsewhere", "7"}}, "gone": {{"here", "99"}}, "local": {{"here", "1"}}}
	cases := []struct {
		name, engine, holder string
		releaseAfter         time.Duration // the holder releases it then (0: never)
		wait                 time.Duration
		failAt               plan.Purpose // a step after which the unit fails
		want                 UnitStatus
		errHas, noteHas      string
		takeover             bool // the holder's row was deleted by the unit
		slowClaim            bool // the lock table's statements take 600 ms each
		holderReads          int  // the holder reads the unit made (-1: any)
	}{
		// Snowflake's claim MERGE also counts a no-op update of a held
		// key: its count cannot say who holds it, the holder is read.
		{name: "free", engine: "snowflake", want: StatusSucceeded, holderReads: 1},
		// Spark's counts only its insert: 1 row is this run's claim.
		{name: "free, claim counted: no holder read", engine: "spark", want: StatusSucceeded},
		{name: "waits for a live run, then proceeds", engine: "snowflake", holder: "other", releaseAfter: 1200 * time.Millisecond,
			wait: 20 * time.Second, want: StatusSucceeded, noteHas: "waited", holderReads: -1},
		{name: "live holder: locked by another run", engine: "bigquery", holder: "other", wait: 700 * time.Millisecond,
			want: StatusFailed, errHas: "locked by another run", holderReads: -1},
		{name: "live holder of this host: locked", engine: "spark", holder: "local", wait: 400 * time.Millisecond,
			want: StatusFailed, errHas: "locked by another run", holderReads: -1},
		{name: "dead run (no heartbeat) taken over", engine: "spark", holder: "dead", wait: 20 * time.Second, want: StatusSucceeded, takeover: true, holderReads: -1},
		{name: "dead process of this host taken over", engine: "bigquery", holder: "gone", wait: 20 * time.Second, want: StatusSucceeded, takeover: true, holderReads: -1},
		// A claim is seconds of Delta commits on a busy Spark: that is
		// not waiting for another run, and the note must not say so.
		{name: "slow claim, no holder: no wait note", engine: "spark", slowClaim: true, want: StatusSucceeded, holderReads: -1},
		{name: "released on failure", engine: "snowflake", failAt: plan.Insert, want: StatusFailed, errHas: "injected", holderReads: -1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := &fakeServer{held: map[string]int{}, dest: batchColumns()}
			hook := func(_ context.Context, _ string, p plan.Purpose) error {
				if c.failAt != "" && p == c.failAt {
					return errors.New("injected")
				}
				return nil
			}
			if c.slowClaim {
				srv.slow = func(q string) time.Duration {
					if strings.Contains(q, "idemc_locks") {
						return 600 * time.Millisecond
					}
					return 0
				}
			}
			r, u, key := claimRun(t, c.engine, srv, other, hook)
			r.claimWait = c.wait
			if c.holder != "" {
				srv.locks.Set(key, c.holder)
			}
			if c.releaseAfter > 0 {
				go func() {
					time.Sleep(c.releaseAfter)
					srv.locks.Answer(r.d.(adapters.ClaimSQL).ClaimsEnd(r.state, c.holder))
				}()
			}
			ur := r.runUnit(context.Background(), u)
			if ur.Status != c.want || !strings.Contains(ur.Error, c.errHas) || !strings.Contains(ur.Note, c.noteHas) ||
				c.noteHas == "" && strings.Contains(ur.Note, "waited") {
				t.Fatalf("unit %s (error %q, note %q), want %s with %q, note %q", ur.Status, ur.Error, ur.Note, c.want, c.errHas, c.noteHas)
			}
			switch got := srv.locks.Holder(key); {
			case c.want == StatusFailed && c.holder != "" && got != c.holder:
				t.Errorf("the live holder's claim is %q after the unit, want %q", got, c.holder)
			case (c.want != StatusFailed || c.holder == "") && got != "":
				t.Errorf("the claim is still held by %q after the unit ended", got)
			}
			if c.want == StatusFailed && c.holder != "" && srv.okContaining("INSERT INTO "+r.d.Qualify(u.Write.Target)) > 0 {
				t.Error("a unit locked out wrote its destination")
			}
			if n := srv.okContaining("SELECT run_id"); c.holderReads >= 0 && n != c.holderReads {
				t.Errorf("%d holder reads, want %d", n, c.holderReads)
			}
			if took := srv.okContaining("run_id = '"+c.holder+"'") > 0 && c.holder != ""; took != c.takeover {
				t.Errorf("the holder's row deleted by the unit: %v, want %v", took, c.takeover)
			}
		})
	}
}
