package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitInterrupted is the exit code of a run ended by SIGINT or SIGTERM
// (128 + SIGINT, what shells report for a command stopped by Ctrl-C).
const exitInterrupted = 130

// errInterrupt is the cause of the command's context once a signal came.
var errInterrupt = errors.New("interrupted")

// interruptedError carries exit code 130; the runner has already printed
// the interrupted summary.
type interruptedError struct{ msg string }

func (e *interruptedError) Error() string { return e.msg }

// interruptContext is cancelled by the first SIGINT or SIGTERM, so that the
// running command stops starting work and rolls back what is in flight.
// A second signal while it cleans up exits at once with 130: the units
// still in flight are left running in the audit table and the next run
// marks them abandoned, as after a crash.
func interruptContext(stderr io.Writer) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(stderr, "\ninterrupt: rolling back the units in flight and starting no new one (press Ctrl-C again to quit at once)")
		cancel(errInterrupt)
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "interrupt: quitting now; the next run marks the units left running abandoned")
			os.Exit(exitInterrupted)
		case <-done:
		}
	}()
	// stop keeps the signals caught (not signal.Stop): one that comes as
	// the command returns must not kill the process with the default
	// action after the work is done; it is dropped and the exit code stands.
	return ctx, func() {
		close(done)
		cancel(nil)
	}
}
