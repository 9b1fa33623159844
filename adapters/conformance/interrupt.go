package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/runner"
)

// slowModel is a table whose query runs for about 20 seconds on the
// engine, so that an interrupt lands in the middle of a real statement and
// the driver has to cancel it; "" where the engine has no sleep function
// (DuckDB: the runner test and the end-to-end test cover it with a pause).
func slowModel(engine string) string {
	var from string
	switch engine {
	case "postgres":
		from = "(SELECT pg_sleep(20)) AS s"
	case "mysql":
		from = "(SELECT SLEEP(20) AS z) AS s"
	default:
		return ""
	}
	return "/* idemc\nmaterialized = \"table\"\n*/\nSELECT count(*) AS n FROM " + from
}

// An interrupt (the build's context cancelled) during a unit's statement:
// the run ends as interrupted within the grace period, the unit's audit row
// is abandoned with an "interrupted" error (not running, not succeeded),
// the table it was rebuilding is as it was, and a plain rerun completes.
func interruptMidStatement(t *testing.T, tgt Target) {
	slow := slowModel(tgt.Engine)
	if slow == "" {
		t.Skip("no sleep function on " + tgt.Engine)
	}
	quick := "/* idemc\nmaterialized = \"table\"\n*/\nSELECT count(*) AS n FROM {{ ref(\"daily\") }}"
	e := newEnv(t, tgt, base(map[string]string{"models/slow.sql": quick}))
	e.mustSucceed(e.build(asOf, nil))
	before := e.fingerprint("slow")
	e.write(map[string]string{"models/slow.sql": slow})
	p, err := project.Load(e.dir)
	if err != nil {
		t.Fatal(err)
	}
	at, _ := time.Parse(time.RFC3339, asOf)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(1500*time.Millisecond, cancel)
	t0 := time.Now()
	res, err := runner.Build(ctx, p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: compiler.Options{AsOf: at, Models: true, Seeds: true}, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(t0); took > 12*time.Second {
		t.Errorf("the interrupted build took %s: the statement was not cancelled", took)
	}
	u := e.unit(res, "slow")
	if !res.Interrupted() || u.Status != runner.StatusInterrupted || res.RolledBack != 1 {
		t.Fatalf("outcome %q, slow %s %q, %d rolled back", res.Outcome, u.Status, u.Error, res.RolledBack)
	}
	rows := e.query("SELECT status, error FROM " + e.rel("idemc_audit") + " WHERE job_name = 'slow' ORDER BY attempt")
	last := rows[len(rows)-1]
	if last[0] != "abandoned" || !strings.HasPrefix(last[1], "interrupted") {
		t.Fatalf("slow's audit row after the interrupt: %v", last)
	}
	equal(t, "slow after the interrupt", e.fingerprint("slow"), before)
	e.write(map[string]string{"models/slow.sql": quick + " WHERE 1 = 1"})
	res = e.build(asOf, nil)
	e.mustSucceed(res)
	if e.unit(res, "slow").Status != "succeeded" {
		t.Fatal("the rerun did not rebuild slow")
	}
}
