package sqlgen

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

func purposes(steps []plan.Step) string {
	out := make([]string, len(steps))
	for i, s := range steps {
		out[i] = string(s.Purpose)
	}
	return strings.Join(out, " ")
}

// The schema steps go right after BEGIN and the unit's lock, before the
// write; a recipe without BEGIN is left alone.
func TestSpliceSchema(t *testing.T) {
	ddl := []plan.Step{{Purpose: plan.SchemaStep}}
	st := func(ps ...plan.Purpose) []plan.Step {
		out := make([]plan.Step, len(ps))
		for i, p := range ps {
			out[i] = plan.Step{Purpose: p}
		}
		return out
	}
	for _, c := range []struct {
		name  string
		steps []plan.Step
		want  string
	}{
		{"with a lock", st(plan.Prepare, plan.AuditStart, plan.Begin, plan.Lock, plan.Delete, plan.Insert, plan.Commit),
			"prepare audit_start begin lock schema delete insert commit"},
		{"without a lock", st(plan.AuditStart, plan.Begin, plan.Publish, plan.Commit), "audit_start begin schema publish commit"},
		{"no transaction", st(plan.AuditStart, plan.Publish, plan.AuditFinish), "audit_start publish audit_finish"},
	} {
		if got := purposes(spliceSchema(c.steps, 0, ddl)); got != c.want {
			t.Errorf("%s: got %s, want %s", c.name, got, c.want)
		}
	}
}
