package main

import (
	"bytes"
	"context"
	"errors"
	"testing"
)

// TestExitCode: the exit code of each way a command ends; an interrupt
// that cancelled the command's context exits 130 even when the command
// then had nothing left to stop (an up-to-date build interrupted while
// planning exited 0: state fuzzer, DuckDB seed 156).
func TestExitCode(t *testing.T) {
	interrupted, cancel := context.WithCancelCause(context.Background())
	cancel(errInterrupt)
	for _, tc := range []struct {
		name string
		ctx  context.Context
		err  error
		want int
	}{
		{"success", context.Background(), nil, exitOK},
		{"interrupt, nothing left to stop", interrupted, nil, exitInterrupted},
		{"interrupted run", interrupted, &interruptedError{}, exitInterrupted},
		{"interrupt while connecting", interrupted, errors.New("dial: context canceled"), exitInterrupted},
		{"failed unit", context.Background(), &failedError{}, exitFailed},
		{"bad flag", context.Background(), errors.New("unknown flag: --x"), exitBad},
	} {
		var stderr bytes.Buffer
		if got := exitCode(tc.ctx, tc.err, &stderr); got != tc.want {
			t.Errorf("%s: exit %d, want %d (%s)", tc.name, got, tc.want, stderr.String())
		}
	}
}
