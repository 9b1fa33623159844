package statefuzz

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// The fuzzer runs idemc as a user does: the compiled binary, in the project
// folder, with the server's DSN in the environment.

func command(ctx context.Context, bin string, w *Warehouse, env []string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = w.Dir
	cmd.Env = append(os.Environ(), env...)
	if w.Engine.DSNVar != "" {
		cmd.Env = append(cmd.Env, w.Engine.DSNVar+"="+w.Engine.DSN)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// A stale run_results.json must not be read as this run's.
	_ = os.Remove(filepath.Join(w.Dir, "target", "run_results.json"))
	return cmd, &out
}

// runIdemc runs one command to its end. Exit is -1 when it could not start.
func runIdemc(ctx context.Context, bin string, w *Warehouse, env []string, args ...string) Outcome {
	cmd, out := command(ctx, bin, w, env, args...)
	err := cmd.Run()
	return outcome(w, cmd, out, err)
}

func outcome(w *Warehouse, cmd *exec.Cmd, out *bytes.Buffer, err error) Outcome {
	o := Outcome{Output: out.String()}
	o.Units, o.RunID, o.RunEnd = runResults(w.Dir)
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		o.Exit = ee.ExitCode()
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			o.Exit, o.Signaled = 128+int(st.Signal()), true // as a shell shows it
		}
	default:
		o.Exit = -1
		o.Output += err.Error()
	}
	return o
}

// runSignalled starts a command and sends sig after delay unless it has
// ended by then. sent is when the signal was sent (zero: it was not); lag
// is how long the process lived after it.
func runSignalled(ctx context.Context, bin string, w *Warehouse, env []string, sig syscall.Signal, delay time.Duration, args ...string) (o Outcome, sent time.Time, lag time.Duration) {
	cmd, out := command(ctx, bin, w, env, args...)
	if err := cmd.Start(); err != nil {
		return Outcome{Exit: -1, Output: err.Error()}, time.Time{}, 0
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return outcome(w, cmd, out, err), time.Time{}, 0
	case <-time.After(delay):
		sent = time.Now()
		_ = cmd.Process.Signal(sig)
	}
	err := <-done
	return outcome(w, cmd, out, err), sent, time.Since(sent)
}
