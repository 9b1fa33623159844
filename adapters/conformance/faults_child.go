package conformance

// The fault suite's child process: one build, run by the test binary, that
// a fault kills or fails.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/runner"
)

// Exit codes of a fault child (the test binary running one build): never 0,
// so that a test binary that did not reach the child code is told apart.
const (
	childOK           = 10
	childUnitsFailed  = 11
	childBuildError   = 12
	childSetupFailure = 13
)

const faultChildEnv = "IDEMC_FAULT_CHILD"

type childSpec struct {
	Dir, AsOf, Start, End string
	Threads               int
}

// runFaultChild runs one build described by spec and exits.
func runFaultChild(spec string) {
	var cs childSpec
	if err := json.Unmarshal([]byte(spec), &cs); err != nil {
		fmt.Fprintln(os.Stderr, "fault child:", err)
		os.Exit(childSetupFailure)
	}
	buildChild("fault child", cs.Dir, compiler.Options{Start: cs.Start, End: cs.End}, cs.AsOf, cs.Threads)
}

// buildChild runs one build of the project in dir and exits with a child
// exit code, printing what failed for the parent to read (prefixed by who).
func buildChild(who, dir string, opts compiler.Options, asOfText string, threads int) {
	p, err := project.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, who+":", err)
		os.Exit(childSetupFailure)
	}
	opts.AsOf, _ = time.Parse(time.RFC3339, asOfText)
	opts.Models, opts.Seeds = true, true
	res, err := runner.Build(context.Background(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: opts, Threads: threads})
	if err != nil {
		fmt.Fprintln(os.Stderr, who+": build error:", err)
		os.Exit(childBuildError)
	}
	if !res.OK() {
		for _, u := range res.Units {
			if u.Error != "" {
				fmt.Fprintf(os.Stderr, "%s: unit %s %s: %s\n", who, u.ID, u.Status, firstLineOf(u.Error))
			}
		}
		os.Exit(childUnitsFailed)
	}
	os.Exit(childOK)
}

// startChild starts a build of the env's project in a child process.
func (s *faultSuite) startChild(t *testing.T, e *env, cs childSpec, fault string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cs.Dir, cs.AsOf = e.dir, s.asOf()
	spec, _ := json.Marshal(cs)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaults$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+string(spec), "IDEMC_FAULT="+fault, "IDEMC_TRACE=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return -int(st.Signal())
		}
		return ee.ExitCode()
	}
	return -1000
}

func describeExit(code int) string {
	switch code {
	case childOK:
		return "completed"
	case childUnitsFailed:
		return "units failed"
	case childBuildError:
		return "build error"
	case -int(syscall.SIGKILL):
		return "killed"
	}
	return fmt.Sprintf("exit %d", code)
}
