package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/testtree"
)

// interruptProject: a and b, slow reading both, 20 partitions of daily
// reading slow. With --threads 1, slow runs third.
var interruptProject = map[string]string{
	"project.toml": `name = "interrupt"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
`,
	"models/a.sql":    "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x",
	"models/b.sql":    "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 2 AS x",
	"models/slow.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT x FROM {{ ref(\"a\") }} UNION ALL SELECT x FROM {{ ref(\"b\") }}",
	"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT d, x FROM (SELECT DATE '2026-07-01' + CAST(x AS INTEGER) AS d, x FROM {{ ref("slow") }}) AS s
WHERE d >= {{ start }} AND d < {{ end }}`,
}

// child is the real command line in a process of its own: the test binary
// run as "idemc" (TestMain dispatches on the program name), so signals
// reach it as they reach a user's idemc.
type child struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	out    bytes.Buffer // everything read from stdout
	stderr bytes.Buffer
}

func startIdemc(t *testing.T, dir, fault string, args ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: &exec.Cmd{Path: exe, Args: append([]string{"idemc"}, append(args, "--project", dir)...)}}
	c.cmd.Env = append(os.Environ(), "IDEMC_TARGET=", "IDEMC_FAULT="+fault)
	c.cmd.Stderr = &c.stderr
	pipe, err := c.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	c.stdout = bufio.NewReader(io.TeeReader(pipe, &c.out))
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cmd.Process.Kill() })
	return c
}

// waitFor reads stdout until a line contains s.
func (c *child) waitFor(t *testing.T, s string) {
	t.Helper()
	for {
		line, err := c.stdout.ReadString('\n')
		if strings.Contains(line, s) {
			return
		}
		if err != nil {
			t.Fatalf("idemc ended before printing %q:\n%s%s", s, c.out.String(), c.stderr.String())
		}
	}
}

// wait reads the rest of stdout and returns the exit code, failing the test
// if the process takes longer than limit.
func (c *child) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		_, _ = io.Copy(io.Discard, c.stdout)
		done <- c.cmd.Wait()
	}()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(limit):
		t.Fatalf("idemc did not exit within %s:\n%s%s", limit, c.out.String(), c.stderr.String())
		return -1
	}
}

// auditSummary lists "job status" for every audit row not succeeded, and
// the number of succeeded ones.
func auditSummary(t *testing.T, dir string) (notOK []string, succeeded int) {
	t.Helper()
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb")+"?access_mode=read_only")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT job_name || ' ' || status || ' ' || coalesce(error, '') FROM main.idemc_audit ORDER BY job_name, partition_key, attempt`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(s, " succeeded ") {
			succeeded++
		} else {
			notOK = append(notOK, s)
		}
	}
	return notOK, succeeded
}

var buildArgs = []string{"build", "--threads", "1", "--as-of", "2026-07-21T00:00:00Z"}

// TestInterruptRealBinary sends SIGINT to idemc while slow's transaction is
// open (an injected pause after BEGIN that the interrupt cuts short, like
// a long statement the driver cancels).
func TestInterruptRealBinary(t *testing.T) {
	dir := testtree.Write(t, interruptProject)
	c := startIdemc(t, dir, "sleep:slow:begin:60s", buildArgs...)
	c.waitFor(t, "succeeded b ")
	time.Sleep(300 * time.Millisecond) // slow is in its pause
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 20*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s%s", code, c.out.String(), c.stderr.String())
	}
	out := c.out.String()
	want := `interrupted: 2 succeeded, 1 rolled back, 20 not started — run "idemc retry" to finish`
	if !strings.Contains(out, want) || !strings.Contains(out, "interrupted slow") {
		t.Errorf("stdout lacks %q or slow's line:\n%s", want, out)
	}
	for _, bad := range []string{"Fix the cause", "skipped", "context canceled", "daily"} {
		if strings.Contains(out+c.stderr.String(), bad) {
			t.Errorf("output says %q:\n%s%s", bad, out, c.stderr.String())
		}
	}
	notOK, _ := auditSummary(t, dir)
	if len(notOK) != 1 || !strings.HasPrefix(notOK[0], "slow abandoned interrupted") {
		t.Errorf("audit rows not succeeded: %q, want slow abandoned with an interrupted error", notOK)
	}
	results, err := os.ReadFile(filepath.Join(dir, "target", "run_results.json"))
	if err != nil || !strings.Contains(string(results), `"outcome": "interrupted"`) {
		t.Errorf("run_results.json does not say interrupted (%v)", err)
	}
	// A plain rerun finishes the rest.
	again := startIdemc(t, dir, "", buildArgs...)
	if code := again.wait(t, time.Minute); code != 0 || !strings.Contains(again.out.String(), "21 succeeded, 0 failed") {
		t.Fatalf("rerun: exit %d\n%s%s", code, again.out.String(), again.stderr.String())
	}
}

// TestInterruptTwice: a second SIGINT while the first is being handled
// exits at once with 130, even when the statement in flight ignores the
// cancellation (an injected stall); the next run marks the unit left
// running abandoned and completes.
func TestInterruptTwice(t *testing.T) {
	dir := testtree.Write(t, interruptProject)
	c := startIdemc(t, dir, "stall:slow:begin:60s", buildArgs...)
	c.waitFor(t, "succeeded b ")
	time.Sleep(300 * time.Millisecond)
	for i := 0; i < 2; i++ {
		if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if code := c.wait(t, 10*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s%s", code, c.out.String(), c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "quitting now") {
		t.Errorf("stderr: %s", c.stderr.String())
	}
	again := startIdemc(t, dir, "", buildArgs...)
	if code := again.wait(t, time.Minute); code != 0 || !strings.Contains(again.out.String(), "21 succeeded, 0 failed") {
		t.Fatalf("rerun: exit %d\n%s%s", code, again.out.String(), again.stderr.String())
	}
	notOK, _ := auditSummary(t, dir)
	if len(notOK) != 1 || !strings.HasPrefix(notOK[0], "slow abandoned ") {
		t.Errorf("audit rows not succeeded: %q, want slow abandoned", notOK)
	}
}

// TestInterruptThenRetry: idemc retry resumes an interrupted run — the
// rolled-back unit and the 20 that never started, at the interrupted run's
// logical time (retry is given none) — and then nothing is left to do.
func TestInterruptThenRetry(t *testing.T) {
	dir := testtree.Write(t, interruptProject)
	c := startIdemc(t, dir, "sleep:slow:begin:60s", buildArgs...)
	c.waitFor(t, "succeeded b ")
	time.Sleep(300 * time.Millisecond)
	if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 20*time.Second); code != 130 {
		t.Fatalf("exit %d, want 130:\n%s%s", code, c.out.String(), c.stderr.String())
	}
	retry := startIdemc(t, dir, "", "retry", "--threads", "1")
	if code := retry.wait(t, time.Minute); code != 0 || !strings.Contains(retry.out.String(), "21 succeeded, 0 failed") || !strings.Contains(retry.out.String(), "finished run") {
		t.Fatalf("retry: exit %d\n%s%s", code, retry.out.String(), retry.stderr.String())
	}
	again := startIdemc(t, dir, "", buildArgs...)
	if code := again.wait(t, time.Minute); code != 0 || !strings.Contains(again.out.String(), "0 succeeded, 0 failed, 0 skipped, 23 up to date") {
		t.Fatalf("build after retry: exit %d\n%s%s", code, again.out.String(), again.stderr.String())
	}
}
