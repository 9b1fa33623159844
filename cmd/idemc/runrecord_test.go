package main

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/idemc/idemc/internal/testtree"
)

// TestStatusRun: idemc_runs records the command line, the vars, the git
// commit and whether the tree was dirty, and a hash of the project's files;
// status --run shows them with the commands that run the same plan again.
func TestStatusRun(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := testtree.Write(t, eventsProject)
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "-A")
	git("commit", "-q", "-m", "models")

	runOf := regexp.MustCompile(`\(run ([^)]+)\)`)
	out, _ := runIdemc(dir, "build", "--select", "daily", "--as-of", "2026-07-03T00:00:00Z", "--vars", `{"k": "a b"}`)
	m := runOf.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no run id in:\n%s", out)
	}
	out, code := runIdemc(dir, "status", "--run", m[1])
	for _, want := range []string{
		"command   idemc build --as-of 2026-07-03T00:00:00Z --project " + dir + " --select daily --vars {\"k\": \"a b\"}",
		`vars      {"k":"a b"}`,
		"outcome   succeeded: 3 succeeded, 0 failed, 0 skipped", // src is built too: it was missing
		"--select daily --vars '{\"k\": \"a b\"}' --target local --as-of 2026-07-03T00:00:00Z",
		"git checkout ",
	} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("status --run: exit %d, missing %q in:\n%s", code, want, out)
		}
	}
	if strings.Contains(out, "uncommitted") {
		t.Fatalf("a clean tree (target/ aside) reported dirty:\n%s", out)
	}
	hash := regexp.MustCompile(`files     (\w+)`).FindStringSubmatch(out)[1]

	// An edit: the next run records a dirty tree and another files hash.
	testtree.Append(t, dir, "models/src.sql", "-- edited\n")
	out, _ = runIdemc(dir, "build", "--select", "src", "--as-of", "2026-07-03T00:00:00Z")
	m = runOf.FindStringSubmatch(out)
	out, _ = runIdemc(dir, "status", "--run", m[1])
	if !strings.Contains(out, "with uncommitted changes") || strings.Contains(out, "files     "+hash) {
		t.Fatalf("after an edit:\n%s", out)
	}
	if out, code := runIdemc(dir, "status", "--run", "nosuch"); code == 0 || !strings.Contains(out, "no run nosuch") {
		t.Fatalf("an unknown run: exit %d\n%s", code, out)
	}
}
