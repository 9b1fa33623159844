package runner

import (
	"errors"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
)

// TestSettleDeferred: the checks a script buffered get the script's
// outcome at its commit. Committed: all pass. Stopped on a check's
// assertion: the ones before it pass, it fails (the unit fails with it),
// the ones after it were never evaluated and stay deferred. Failed
// otherwise: the unit fails with the commit's error and nothing is judged.
// Checks that ran on their own (a staged batch's) keep their status.
func TestSettleDeferred(t *testing.T) {
	boom := errors.New("bigquery: job x failed: Access Denied")
	cases := []struct {
		name      string
		err       error
		want      string // statuses of a, b, c, staged
		wantCheck string // the unit fails by this check
		wantErr   bool   // the unit fails by the commit's error
	}{
		{name: "committed", want: "pass pass pass warn"},
		{name: "stopped on b", err: &adapters.CheckFailed{Check: "b", Err: boom}, want: "pass fail deferred warn", wantCheck: "b"},
		{name: "stopped on a", err: &adapters.CheckFailed{Check: "a", Err: boom, Sample: []string{"(k=1)"}}, want: "fail deferred deferred warn", wantCheck: "a"},
		{name: "another error", err: boom, want: "deferred deferred deferred warn"},
		{name: "an assertion of no check", err: &adapters.CheckFailed{Check: "z", Err: boom}, want: "deferred deferred deferred warn", wantErr: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ur := &UnitResult{Checks: []CheckResult{{Name: "a", Status: CheckDeferred}, {Name: "b", Status: CheckDeferred},
				{Name: "c", Status: CheckDeferred}, {Name: "staged", Status: CheckWarn}}}
			ue := settleDeferred(ur, c.err, 7)
			var got []string
			for _, cr := range ur.Checks {
				got = append(got, string(cr.Status))
			}
			if strings.Join(got, " ") != c.want {
				t.Errorf("statuses %v, want %s", got, c.want)
			}
			switch {
			case c.wantCheck != "":
				if ue == nil || ue.check == nil || ue.check.Name != c.wantCheck || !strings.Contains(ue.Error(), "check "+c.wantCheck+" failed") {
					t.Fatalf("unit error %v, want check %s failed", ue, c.wantCheck)
				}
			case c.wantErr:
				if ue == nil || ue.check != nil || !errors.Is(ue.err, boom) {
					t.Fatalf("unit error %v, want the commit's error", ue)
				}
			case ue != nil:
				t.Fatalf("unit error %v, want none here (the commit's own error path reports it)", ue)
			}
		})
	}
	// committed is what a succeeded unit's audit row records.
	if cs := committed([]CheckResult{{Name: "a", Status: CheckDeferred}, {Name: "w", Status: CheckWarn}}); cs[0].Status != CheckPass || cs[1].Status != CheckWarn {
		t.Errorf("committed: %+v", cs)
	}
}
