package runner

import (
	"context"
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestSharedStateConflictRetriedAlone: on Spark (no transaction), a
// conflict on the shared audit table at the unit's last statement used to
// redo the whole unit, up to 4 times, and fail it when the other units
// kept committing; the audit statement is now run again alone, and the
// publish is sent once.
func TestSharedStateConflictRetriedAlone(t *testing.T) {
	clean, purposes := traced(t, "spark", "delete_insert")
	for i, p := range purposes {
		if p != plan.AuditFinish && p != plan.AuditStart {
			continue
		}
		srv := failingAt(clean, i, errFakeConflict)
		r, u := fakeRun(t, "spark", "delete_insert", srv, nil)
		ur := r.runUnit(context.Background(), u)
		if ur.Status != "succeeded" || strings.Contains(ur.Note, "retried after a conflict") {
			t.Errorf("conflict at statement %d (%s): status %q note %q error %q, want succeeded without redoing the unit", i, p, ur.Status, ur.Note, ur.Error)
		}
		if n := srv.okContaining("REPLACE WHERE"); n != 1 {
			t.Errorf("conflict at statement %d (%s): the publish ran %d times, want 1", i, p, n)
		}
	}
}
