// Package faultinject turns IDEMC_FAULT rules into a runner.StepHook for the
// crash, failure and retry trials (adapters/conformance, the state fuzzer,
// cmd/idemc's scripts). Only test binaries and the idemc_faults build of
// cmd/idemc link it: the idemc a user runs reads no fault variable.
package faultinject

import (
	"context"
	"database/sql/driver"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// Env is the variable the harnesses set. It holds rules separated by ";":
//
//	crash:<unit>:<purpose>   SIGKILL this process right after that step
//	crash:<unit>:<purpose>:<n>  the same, the n-th time the step runs (an
//	                         HTTP source runs its page steps once a page)
//	fail:<unit>:<purpose>    make that step fail with an injected error
//	diskfull:<unit>:<purpose>  fail it as a full disk does (DuckDB's text)
//	connlost:<unit>:<purpose>  fail it as a dropped connection does
//	                         (driver.ErrBadConn)
//	sleep:<unit>:<purpose>:<duration>   pause after that step, like a slow
//	                         statement: an interrupt ends the pause and fails the step
//	stall:<unit>:<purpose>:<duration>   pause and ignore interrupts, like a
//	                         statement the driver cannot cancel (the second
//	                         Ctrl-C test)
//	await:<unit>:<purpose>:<file>  pause after that step until the file
//	                         exists (at most 10 minutes), having created
//	                         <file>.reached: a harness knows the unit is
//	                         held and holds it exactly as long as it needs
//	conflict:<unit>:<purpose>  make that step fail once, the first time it
//	                         runs, with an error the runner retries like a
//	                         deadlock (the retry tests)
//
// <unit> is a unit id ("events_daily/2026-07-04", "dim_users") or "*".
const Env = "IDEMC_FAULT"

type faults []fault

type fault struct {
	action, unit string
	purpose      plan.Purpose
	pause        time.Duration
	file         string       // await: the file whose creation ends the pause
	fired        *atomic.Bool // conflict: fires once per run
	nth          int64        // crash: the occurrence that fires (0: the first)
	seen         *atomic.Int64
}

// FromEnv returns the hook of the rules in IDEMC_FAULT, read now (nil
// when it is unset): a harness calls it once per run, so that a conflict
// rule fires once per run.
func FromEnv() runner.StepHook {
	return Parse(os.Getenv(Env))
}

// Parse returns the hook of a rule list (nil for none).
func Parse(spec string) runner.StepHook {
	if spec == "" {
		return nil
	}
	var out faults
	for _, rule := range strings.Split(spec, ";") {
		parts := strings.Split(rule, ":")
		if len(parts) < 3 {
			continue
		}
		f := fault{action: parts[0], unit: parts[1], purpose: plan.Purpose(parts[2]), fired: &atomic.Bool{}, seen: &atomic.Int64{}}
		if f.action == "crash" && len(parts) > 3 {
			f.nth, _ = strconv.ParseInt(parts[3], 10, 64)
		}
		if (f.action == "sleep" || f.action == "stall") && len(parts) > 3 {
			f.pause, _ = time.ParseDuration(parts[3])
		}
		if f.action == "await" && len(parts) > 3 {
			f.file = strings.Join(parts[3:], ":")
		}
		out = append(out, f)
	}
	return out.after
}

// after is called after each step of a unit; it may fail the step, pause or
// kill the process.
func (fs faults) after(ctx context.Context, unit string, p plan.Purpose) error {
	for _, f := range fs {
		if (f.unit != "*" && f.unit != unit) || f.purpose != p {
			continue
		}
		switch f.action {
		case "crash":
			if n := f.seen.Add(1); f.nth > 1 && n < f.nth {
				continue
			}
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Second) // the signal is delivered before this returns
		case "fail":
			return fmt.Errorf("injected failure (IDEMC_FAULT) after %s", p)
		case "conflict":
			if f.fired.CompareAndSwap(false, true) {
				return fmt.Errorf("injected (IDEMC_FAULT) after %s: %w", p, runner.ErrConflict)
			}
		case "diskfull":
			return fmt.Errorf("IO Error: Could not write file \"w.duckdb.wal\": No space left on device (injected by IDEMC_FAULT after %s)", p)
		case "connlost":
			return fmt.Errorf("%w (injected by IDEMC_FAULT after %s)", driver.ErrBadConn, p)
		case "sleep":
			t := time.NewTimer(f.pause)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				return ctx.Err()
			}
		case "stall":
			time.Sleep(f.pause)
		case "await":
			if err := await(ctx, f.file); err != nil {
				return err
			}
		}
	}
	return nil
}

// await creates file.reached, then polls for file until it exists, the
// context ends (an interrupt fails the step, as sleep's does) or 10
// minutes pass.
func await(ctx context.Context, file string) error {
	if err := os.WriteFile(file+".reached", nil, 0o644); err != nil {
		return fmt.Errorf("IDEMC_FAULT await: %w", err)
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.Now().Add(10 * time.Minute); time.Now().Before(deadline); {
		if _, err := os.Stat(file); err == nil {
			return nil
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return fmt.Errorf("IDEMC_FAULT await: %s was not created within 10 minutes", file)
}
