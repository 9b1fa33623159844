package runner

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/idemc/idemc/adapters"
)

// Fault injection for the crash and retry tests (and `make soak`). The
// environment variable IDEMC_FAULT holds rules separated by ";":
//
//	crash:<unit>:<purpose>   SIGKILL this process right after that step
//	fail:<unit>:<purpose>    make that step fail with an injected error
//	diskfull:<unit>:<purpose>  fail it as a full disk does (DuckDB's text)
//	connlost:<unit>:<purpose>  fail it as a dropped connection does
//	                         (driver.ErrBadConn)
//	sleep:<unit>:<purpose>:<duration>   pause after that step, like a slow
//	                         statement: an interrupt ends the pause and fails the step
//	stall:<unit>:<purpose>:<duration>   pause and ignore interrupts, like a
//	                         statement the driver cannot cancel (the second
//	                         Ctrl-C test)
//	conflict:<unit>:<purpose>  make that step fail once, the first time it
//	                         runs, with an error the runner retries like a
//	                         deadlock (the retry tests)
//
// <unit> is a unit id ("events_daily/2026-07-04", "dim_users") or "*".
// It is read once per run; with the variable unset nothing is checked.
type faults []fault

type fault struct {
	action, unit string
	purpose      adapters.Purpose
	pause        time.Duration
	fired        *atomic.Bool // conflict: fires once per run
}

// errInjectedConflict is the conflict rule's error; retryable treats it
// as the engine's deadlock.
var errInjectedConflict = errors.New("injected conflict (IDEMC_FAULT), retried like a deadlock")

func loadFaults() faults {
	spec := os.Getenv("IDEMC_FAULT")
	if spec == "" {
		return nil
	}
	var out faults
	for _, rule := range strings.Split(spec, ";") {
		parts := strings.Split(rule, ":")
		if len(parts) < 3 {
			continue
		}
		f := fault{action: parts[0], unit: parts[1], purpose: adapters.Purpose(parts[2]), fired: &atomic.Bool{}}
		if (f.action == "sleep" || f.action == "stall") && len(parts) > 3 {
			f.pause, _ = time.ParseDuration(parts[3])
		}
		out = append(out, f)
	}
	return out
}

// after is called after each step of a unit; it may fail the step, pause or
// kill the process.
func (fs faults) after(ctx context.Context, unit string, p adapters.Purpose) error {
	for _, f := range fs {
		if (f.unit != "*" && f.unit != unit) || f.purpose != p {
			continue
		}
		switch f.action {
		case "crash":
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			time.Sleep(time.Second) // the signal is delivered before this returns
		case "fail":
			return fmt.Errorf("injected failure (IDEMC_FAULT) after %s", p)
		case "conflict":
			if f.fired.CompareAndSwap(false, true) {
				return fmt.Errorf("after %s: %w", p, errInjectedConflict)
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
		}
	}
	return nil
}
