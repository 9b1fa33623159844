package main

import (
	"os/exec"
	"strings"
	"testing"
)

// TestReleaseLinksNoFaultInjection: the idemc users build reads no
// IDEMC_FAULT (which can SIGKILL it): internal/faultinject is linked only
// by test binaries and by `go build -tags idemc_faults`.
func TestReleaseLinksNoFaultInjection(t *testing.T) {
	for _, c := range []struct {
		tags string
		want bool
	}{{"", false}, {"idemc_faults", true}} {
		out, err := exec.Command("go", "list", "-tags", c.tags, "-deps", "github.com/idemc/idemc/cmd/idemc").CombinedOutput()
		if err != nil {
			t.Fatalf("go list: %v\n%s", err, out)
		}
		if got := strings.Contains(string(out), "github.com/idemc/idemc/internal/faultinject\n"); got != c.want {
			t.Errorf("tags %q: links internal/faultinject = %v, want %v", c.tags, got, c.want)
		}
	}
}
