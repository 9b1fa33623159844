package conformance

// Fatal engine errors (issue 17, item 11): after a unit fails with a full
// disk or a lost connection, no new unit starts on any engine; the rest
// are not started (no audit row), the run fails, and the next build
// finishes the work.

import (
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/runner"
)

func hostileFatal(t *testing.T, tgt Target) {
	for _, tc := range []struct{ fault, says string }{
		{"diskfull", "the engine is out of disk space"},
		{"connlost", "was lost while running model b"},
	} {
		t.Run(tc.fault, func(t *testing.T) {
			files := map[string]string{}
			for _, m := range []string{"a", "b", "c", "d"} {
				files["models/"+m+".sql"] = "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS n"
			}
			e := newEnv(t, tgt, files)
			t.Setenv("IDEMC_FAULT", tc.fault+":b:audit_start")
			p, err := project.Load(e.dir)
			if err != nil {
				t.Fatal(err)
			}
			at := time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)
			res, err := runner.Build(t.Context(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: compiler.Options{AsOf: at, Models: true, Seeds: true}, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			t.Setenv("IDEMC_FAULT", "")
			if res.OK() || res.Outcome != runner.OutcomeFailed || res.Succeeded != 1 || res.Failed != 1 || res.NotStarted != 2 {
				t.Fatalf("outcome %s: %d succeeded, %d failed, %d not started; want failed: 1, 1, 2", res.Outcome, res.Succeeded, res.Failed, res.NotStarted)
			}
			if b := e.unit(res, "b"); !strings.Contains(b.Error, tc.says) || !strings.Contains(b.Error, `"idemc retry"`) {
				t.Errorf("b's error %q does not say %q and the remedy", b.Error, tc.says)
			}
			for _, m := range []string{"c", "d"} {
				if got := e.auditStatuses(m); len(got) != 0 {
					t.Errorf("%s did not start but has audit rows %v", m, got)
				}
			}
			again := e.build("2026-07-03T00:00:00Z", nil)
			e.mustSucceed(again)
			if again.Succeeded != 3 {
				t.Errorf("the next build ran %d units, want b, c and d", again.Succeeded)
			}
		})
	}
}
