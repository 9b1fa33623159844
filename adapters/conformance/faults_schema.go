package conformance

// Schema-change-then-fail trials (issue 17, item 1): from a clean build,
// one model changes its columns (added, dropped, retyped) under
// sync_all_columns, append_new_columns, --full-refresh or as a table model,
// and the run fails (IDEMC_FAULT=fail:*:<purpose>, in process) or is
// SIGKILLed (crash:*:<purpose>, in a child) after one step purpose of its
// units. Right after, every relation must equal its state before the run,
// columns (names and types) and rows, and the run's audit rows must say
// failed (fail) or nothing succeeded (crash). Then the same command, run
// again, must leave every relation equal to a clean build of the new model
// (columns and rows) with no relation left aside.
//
// CI runs every (change, purpose) fail trial and the crash trials at the
// schema step and the first check of each change; IDEMC_SOAK=1 crashes
// after every purpose reached too.

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// schemaChangeCase is one model change.
type schemaChangeCase struct {
	name        string
	model       string // the file that changes
	before      string // its text before, and after
	after       string
	fullRefresh bool
}

func sfDaily(extra, cols string) string {
	return "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n" + extra +
		"[checks]\nnot_null = [\"id\"]\n*/\nSELECT " + cols + " FROM {{ source(\"raw\", \"events\") }} WHERE d >= {{ start }} AND d < {{ end }}"
}

func sfKeyed(cols string) string {
	return "/* idemc\nmaterialized = \"incremental\"\nstrategy = \"merge\"\nunique_key = \"id\"\n[checks]\nnot_null = [\"id\"]\n*/\nSELECT " + cols + " FROM {{ source(\"raw\", \"events\") }}"
}

func sfTable(cols string) string {
	return "/* idemc\nmaterialized = \"table\"\n[checks]\nnot_null = [\"id\"]\n*/\nSELECT " + cols + " FROM {{ source(\"raw\", \"events\") }}"
}

var schemaChangeCases = []schemaChangeCase{
	{name: "sync_add_drop", model: "daily",
		before: sfDaily("on_schema_change = \"sync_all_columns\"\n", "id, d, amount"),
		after:  sfDaily("on_schema_change = \"sync_all_columns\"\n", "id, d, user_id")},
	{name: "sync_retype", model: "daily",
		before: sfDaily("on_schema_change = \"sync_all_columns\"\n", "id, d, amount"),
		after:  sfDaily("on_schema_change = \"sync_all_columns\"\n", "id, d, concat('n', amount) AS amount")},
	{name: "append_new_columns", model: "daily",
		before: sfDaily("on_schema_change = \"append_new_columns\"\n", "id, d, amount"),
		after:  sfDaily("on_schema_change = \"append_new_columns\"\n", "id, d, amount, user_id")},
	{name: "full_refresh", model: "keyed", fullRefresh: true,
		before: sfKeyed("id, d, amount"), after: sfKeyed("id, concat('n', amount) AS amount, user_id")},
	{name: "table_add_drop", model: "dim",
		before: sfTable("id, amount"), after: sfTable("id, user_id")},
	{name: "table_retype", model: "dim",
		before: sfTable("id, amount"), after: sfTable("id, concat('n', amount) AS amount")},
}

// sfFiles is the trial's project: the seeds and the one model that changes.
func sfFiles(c schemaChangeCase, text string) map[string]string {
	files := base(nil)
	delete(files, "models/daily.sql")
	files["models/"+c.model+".sql"] = text
	return files
}

// purposes are the steps the case's units may have, on some engine.
func (c schemaChangeCase) purposes() []plan.Purpose {
	switch c.model {
	case "daily":
		return []plan.Purpose{plan.SchemaStep, plan.Validate, plan.Delete, plan.Insert, plan.CheckStep}
	case "keyed":
		return []plan.Purpose{plan.SchemaStep, plan.Stage, plan.Validate, plan.Delete, plan.Insert, plan.Publish, plan.CheckStep}
	}
	return []plan.Purpose{plan.SchemaStep, plan.Stage, plan.Delete, plan.Insert, plan.Publish, plan.CheckStep}
}

// SchemaFaults runs the schema-change-then-fail trials and logs a SUMMARY
// line with the outcomes per kind.
func SchemaFaults(t *testing.T, tgt Target) {
	soak := os.Getenv("IDEMC_SOAK") == "1"
	t0 := time.Now()
	outcomes := map[string]map[string]int{}
	count := func(kind, outcome string) {
		if outcomes[kind] == nil {
			outcomes[kind] = map[string]int{}
		}
		outcomes[kind][outcome]++
	}
	for _, c := range schemaChangeCases {
		t.Run(c.name, func(t *testing.T) {
			ref := newEnv(t, tgt, sfFiles(c, c.after))
			ref.mustSucceed(ref.build(asOf, nil))
			want := ref.schemaSnap(false)
			for _, p := range c.purposes() {
				before := t.Failed()
				outcome := sfTrial(t, tgt, c, "fail", p, want)
				if t.Failed() && !before {
					outcome = "FAILED"
				}
				count("fail_"+c.name, outcome)
				if outcome == "restored" && (soak || p == plan.SchemaStep || p == plan.CheckStep) {
					outcome = sfTrial(t, tgt, c, "crash", p, want)
					if t.Failed() {
						outcome = "FAILED"
					}
					count("crash_"+c.name, outcome)
				}
			}
		})
	}
	var kinds []string
	total, restored, failed := 0, 0, 0
	for k, m := range outcomes {
		var parts []string
		for o, n := range m {
			parts = append(parts, fmt.Sprintf("%s %d", o, n))
			total += n
			switch o {
			case "restored":
				restored += n
			case "FAILED":
				failed += n
			}
		}
		sort.Strings(parts)
		kinds = append(kinds, fmt.Sprintf("%s (%s)", k, strings.Join(parts, ", ")))
	}
	sort.Strings(kinds)
	t.Logf("SUMMARY schema %s: %d trials in %v, %d reached the fault, left the previous state and recovered, %d FAILED: %s",
		tgt.Engine, total, time.Since(t0).Round(100*time.Millisecond), restored, failed, strings.Join(kinds, "; "))
}

// sfTrial runs one trial and returns its outcome: restored (the previous
// state, then the rerun equals a clean build), post_swap (MySQL's publish
// is the swap: a failure after it leaves the new relation), or not_reached
// (no unit has a step of that purpose: a plain run of the new model, which
// must equal a clean build).
func sfTrial(t *testing.T, tgt Target, c schemaChangeCase, action string, p plan.Purpose, want string) string {
	t.Helper()
	e := newEnv(t, tgt, sfFiles(c, c.before))
	e.mustSucceed(e.build(asOf, nil))
	before := e.schemaSnap(true)
	okBefore := e.succeededRows(c.model)
	e.write(map[string]string{"models/" + c.model + ".sql": c.after})
	mod := func(o *compiler.Options) { o.FullRefresh = c.fullRefresh }
	fault := action + ":*:" + string(p)
	if c.fullRefresh {
		fault = action + ":" + c.model + ":" + string(p) // a full refresh reruns the seeds too
	}
	reached, outcome := true, "restored"
	if action == "crash" {
		e.crashChildOpts(asOf, fault, c.fullRefresh)
		if got := e.schemaSnap(true); got != before {
			t.Fatalf("%s after %s: the relations changed:\n got: %s\nwant: %s", fault, c.name, got, before)
		}
		if got := e.succeededRows(c.model); got != okBefore {
			t.Fatalf("%s: %s has %s succeeded audit rows after the crash, %s before", fault, c.model, got, okBefore)
		}
	} else {
		t.Setenv("IDEMC_FAULT", fault)
		res := e.build(asOf, mod)
		t.Setenv("IDEMC_FAULT", "")
		// On MySQL the publish step is the swap itself: a failure after
		// it leaves the new relation (complete) and a failed row.
		postSwap := tgt.Engine == "mysql" && p == plan.Publish
		switch {
		case res.OK():
			reached, outcome = false, "not_reached"
		case postSwap:
			outcome = "post_swap"
		default:
			if got := e.schemaSnap(true); got != before {
				t.Fatalf("%s after %s: the relations changed:\n got: %s\nwant: %s", fault, c.name, got, before)
			}
			st := e.query("SELECT status FROM " + e.rel("idemc_audit") + " WHERE run_id = " + e.d.String(res.RunID) + " AND job_name = " + e.d.String(c.model))
			for _, r := range st {
				if r[0] != "failed" {
					t.Fatalf("%s: an audit row of the failed run says %s", fault, r[0])
				}
			}
			if len(st) == 0 {
				t.Fatalf("%s: the failed run has no audit row", fault)
			}
		}
	}
	if reached {
		e.mustSucceed(e.build(asOf, mod))
	}
	if got := e.schemaSnap(false); got != want {
		t.Fatalf("%s, %s: after the rerun:\n got: %s\nwant (a clean build): %s", c.name, fault, got, want)
	}
	return outcome
}

// schemaSnap is every model relation's columns (with types when typed) and
// sorted rows, and any relation left aside.
func (e *env) schemaSnap(typed bool) string {
	return e.schemaSnapOf(typed, !typed)
}

// schemaSnapOf lists the relations left aside too when leftovers is set (a
// crash may leave them for the next run to drop).
func (e *env) schemaSnapOf(typed, leftovers bool) string {
	var b strings.Builder
	for _, n := range []string{"daily", "keyed", "dim"} {
		rows := e.columnsOf(n)
		if len(rows) == 0 {
			continue
		}
		cols := make([]string, len(rows))
		for i, r := range rows {
			cols[i] = strings.ToLower(r.name)
			if typed {
				cols[i] += " " + strings.ToLower(r.typ)
			}
		}
		fmt.Fprintf(&b, "%s(%s): %s\n", n, strings.Join(cols, ", "), strings.ReplaceAll(e.fingerprint(n), "\n", " | "))
	}
	if !leftovers {
		return b.String()
	}
	for _, n := range e.tables() {
		if strings.HasSuffix(n, "idemc_new") || strings.HasSuffix(n, "idemc_old") || strings.HasSuffix(n, "idemc_try") {
			fmt.Fprintf(&b, "left over: %s\n", n)
		}
	}
	return b.String()
}

// crashChildOpts is crashChild with --full-refresh when asked.
func (e *env) crashChildOpts(asOf, fault string, fullRefresh bool) {
	e.t.Helper()
	if !fullRefresh {
		e.crashChild(asOf, fault)
		return
	}
	e.t.Setenv(childFullRefreshEnv, "1")
	defer e.t.Setenv(childFullRefreshEnv, "")
	e.crashChild(asOf, fault)
}

func (e *env) succeededRows(job string) string {
	return e.query("SELECT count(*) FROM " + e.rel("idemc_audit") + " WHERE status = 'succeeded' AND job_name = " + e.d.String(job))[0][0]
}

// childFullRefreshEnv makes MaybeChild's build a full refresh.
const childFullRefreshEnv = "IDEMC_CONFORMANCE_CHILD_FULL_REFRESH"
