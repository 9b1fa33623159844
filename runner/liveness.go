package runner

import (
	"context"
	"errors"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Heartbeat timing for engines without RunLocks: a live run writes a beat
// every heartbeatEvery; a run with no beat for heartbeatTimeout is dead
// (its running rows become abandoned). The timeout spans several beats,
// so a slow statement or a brief outage does not kill a live run, and it
// bounds the clock difference between the hosts of two runs that it
// tolerates.
const (
	heartbeatEvery   = 15 * time.Second
	heartbeatTimeout = 2 * time.Minute
)

// heartbeats is the run lock of an engine that can hold none (Snowflake,
// BigQuery, Spark): the run's liveness is a heartbeat row it appends while
// it lives. A run of this host whose process is gone is dead at once (a
// kill -9 leaves recent beats); one of another host when its beats stop.
type heartbeats struct {
	eng   adapters.Engine
	sql   adapters.HeartbeatSQL
	state plan.State
	host  string
	every time.Duration
	// timeout: a run without a beat for this long is dead.
	timeout time.Duration
	now     func() time.Time
	alive   func(pid int) bool // reports a process of this host alive
	// claims is the lock table of unit claims, nil when the engine's
	// units take none (Capabilities.UnitClaim).
	claims adapters.ClaimSQL
}

// runLiveness is the engine's RunLocks, or heartbeats for an engine that
// writes concurrently without them; nil for a single-writer engine.
func (r *run) runLiveness() adapters.RunLocks {
	if r.ad.Capabilities.SingleWriter {
		return nil
	}
	if locks, ok := r.eng.(adapters.RunLocks); ok {
		return locks
	}
	sql, ok := r.d.(adapters.HeartbeatSQL)
	if !ok {
		return nil
	}
	host, _ := os.Hostname()
	hb := &heartbeats{eng: r.eng, sql: sql, state: r.state, host: host, every: heartbeatEvery, timeout: heartbeatTimeout,
		now: time.Now, alive: processAlive}
	if c, ok := r.d.(adapters.ClaimSQL); ok && r.ad.Capabilities.UnitClaim {
		hb.claims = c
	}
	return hb
}

// HoldRun writes the run's first beat (creating the table on first use)
// and keeps beating on a session of its own until release, which deletes
// the run's beats and those of runs dead for long.
func (h *heartbeats) HoldRun(ctx context.Context, runID string) (func(), error) {
	sess, err := h.eng.Session(ctx)
	if err != nil {
		return nil, err
	}
	ddl := []string{h.sql.HeartbeatDDL(h.state)}
	if h.claims != nil {
		ddl = append(ddl, h.claims.ClaimDDL(h.state))
	}
	for _, q := range ddl {
		if err := execIdempotent(ctx, h.eng, sess, &plan.Step{SQL: q}); err != nil {
			sess.Close()
			return nil, err
		}
	}
	beat := func(ctx context.Context) error {
		_, err := adapters.ExecSQL(ctx, sess, h.sql.Heartbeat(h.state, runID, h.host, os.Getpid(), h.now()))
		return err
	}
	if err := beat(ctx); err != nil {
		sess.Close()
		return nil, err
	}
	bctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(h.every)
		defer t.Stop()
		for {
			select {
			case <-bctx.Done():
				return
			case <-t.C:
				// A failed beat is retried at the next tick; beats missed
				// for the whole timeout let other runs take this one as
				// dead, as a lost session lock would.
				_ = beat(bctx)
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			stop()
			wg.Wait()
			// Best effort: a beat left behind only ages out, and a claim
			// left behind is a dead run's, taken over by the next claim.
			if h.claims != nil {
				_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), sess, h.claims.ClaimsEnd(h.state, runID))
			}
			_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), sess, h.sql.HeartbeatEnd(h.state, runID, h.now().Add(-24*time.Hour)))
			sess.Close()
		})
	}, nil
}

// RunAlive reports a run with a beat within the timeout, unless that beat
// came from a process of this host that no longer exists.
func (h *heartbeats) RunAlive(ctx context.Context, runID string) (bool, error) {
	sess, err := h.eng.Session(ctx)
	if err != nil {
		return false, err
	}
	defer sess.Close()
	_, rows, err := sess.Query(ctx, h.sql.HeartbeatQuery(h.state, runID, h.now().Add(-h.timeout)), 0)
	if err != nil {
		return false, err
	}
	for _, row := range rows {
		pid, err := strconv.Atoi(row[1])
		if row[0] == h.host && err == nil && !h.alive(pid) {
			return false, nil
		}
		return true, nil
	}
	return false, nil
}

// processAlive: signal 0 tests a process's existence (EPERM: it exists,
// another user's).
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
