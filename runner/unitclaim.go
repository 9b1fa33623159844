package runner

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Polling of a unit claim held by another live run: the first pause, and
// the longest (a held unit usually frees in seconds; a long one should
// cost a few statements a minute, not one a second).
const (
	claimPollFirst = 250 * time.Millisecond
	claimPollMax   = 5 * time.Second
)

// takeClaim completes a claimed lock step (plan.LockSpec.Claim, engines
// with no session lock): it claims the key, reads the holder and goes on
// when it is this run (the read is skipped when the claim counts, Counts,
// and reports that it inserted its row: it inserts only when the key has
// none); a dead holder's row is deleted and the key claimed
// again; a live holder is polled with a jittered backoff until the wait
// runs out, and then the unit fails as locked by another run, having
// written nothing. waited is the time spent waiting for a live holder
// (not the claim's own statements, which take seconds on a busy Spark).
func (r *run) takeClaim(ctx context.Context, sess adapters.Session, s plan.Step) (waited time.Duration, err error) {
	l, c := s.Lock, s.Lock.Claim
	wait := l.Timeout
	if r.claimWait > 0 {
		wait = r.claimWait
	}
	deadline := time.Now().Add(wait)
	pause, holder := claimPollFirst, ""
	var polled time.Time // when waiting for a live holder began
	defer func() {
		if !polled.IsZero() {
			waited = time.Since(polled)
		}
	}()
	for {
		res, err := r.claimExec(ctx, sess, s.SQL)
		if err != nil {
			return 0, err
		}
		if c.Counts && res.Affected == 1 {
			return 0, nil
		}
		_, rows, err := sess.Query(ctx, c.Holder, 1)
		if err != nil {
			return 0, err
		}
		holder = ""
		if len(rows) > 0 && len(rows[0]) > 0 {
			holder = rows[0][0]
		}
		if holder == c.RunID {
			return 0, nil
		}
		if holder != "" {
			alive, err := r.holderAlive(ctx, holder)
			if err != nil {
				return 0, err
			}
			if !alive {
				// Only the dead run's row goes: a run that took it over
				// meanwhile keeps its own, and the claim finds it.
				q := strings.ReplaceAll(c.Takeover, plan.Token(plan.SlotHolder), r.d.String(holder))
				if _, err := r.claimExec(ctx, sess, q); err != nil {
					return 0, err
				}
				continue
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return 0, fmt.Errorf("%s is claimed by run %s, still alive after %s: %w", l.Key, holder, wait, adapters.ErrLocked)
		}
		if polled.IsZero() {
			polled = time.Now()
		}
		select {
		case <-time.After(min(pause/2+rand.N(pause), left)):
		case <-ctx.Done():
			return 0, ctx.Err()
		}
		pause = min(2*pause, claimPollMax)
	}
}

// claimExec runs a statement on the lock table, retried alone when it lost
// to a concurrent claim (Delta's conflict, BigQuery's serialization).
func (r *run) claimExec(ctx context.Context, sess adapters.Session, q string) (plan.Result, error) {
	st := &plan.Step{Purpose: plan.Lock, SQL: q}
	res, err := sess.Exec(ctx, st)
	if err != nil {
		res, err = r.retryShared(ctx, sess, st, err)
	}
	return res, err
}

// holderAlive reports whether the run holding a claim lives (its
// heartbeats, runner/liveness.go); without them it is taken as alive, so a
// claim is never taken from a run that might still write.
func (r *run) holderAlive(ctx context.Context, runID string) (bool, error) {
	if r.beats == nil {
		return true, nil
	}
	return r.beats.RunAlive(ctx, runID)
}
