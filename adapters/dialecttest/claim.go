package dialecttest

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// CheckClaimStep checks a recipe's unit claim (engines whose Capabilities
// say UnitClaim): one lock step whose spec the runner completes — the
// write's destination and partition as its key, the default wait, the
// write's run, a takeover of a named holder, a holder query — and its
// release among the recipe's last two steps.
func CheckClaimStep(t *testing.T, w *plan.Write, steps []plan.Step, wantKey string) {
	t.Helper()
	var claim *plan.Step
	for i := range steps {
		if steps[i].Purpose == plan.Lock {
			claim = &steps[i]
		}
	}
	if claim == nil || claim.Lock == nil || claim.Lock.Claim == nil {
		t.Fatalf("no claim step in the recipe")
	}
	l, c := claim.Lock, claim.Lock.Claim
	released := false
	for _, s := range steps[max(0, len(steps)-2):] {
		released = released || s.Purpose == plan.Cleanup && s.SQL == l.Release
	}
	if l.Key != wantKey || l.Timeout != sqlgen.DefaultClaimWait || c.RunID != w.Audit.RunID || !released ||
		!strings.Contains(c.Takeover, "run_id = "+plan.Token(plan.SlotHolder)) || !strings.HasPrefix(c.Holder, "SELECT run_id") {
		t.Errorf("claim step: key %s, wait %s, %+v, release %s (at the end: %v)", l.Key, l.Timeout, *c, l.Release, released)
	}
}
