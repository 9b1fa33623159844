package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// TestSchemaSyncOncePerModel: the partitions of one model read the
// catalog (the destination's kind and columns) once per run, not once per partition (issue 18, item 5: three catalog
// lookups per partition were half a backfill's time); a changed model
// still has its columns synced on the next run.
func TestSchemaSyncOncePerModel(t *testing.T) {
	dir := writeProject(t, map[string]string{"p": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
on_schema_change = "append_new_columns"
*/
SELECT {{ start }} AS d, 1 AS n`})
	window := compiler.Options{Start: "2026-07-01", End: "2026-07-06", Models: true}
	trace := func() string {
		t.Helper()
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var tr strings.Builder
		opts := window
		opts.AsOf = time.Date(2026, 7, 11, 0, 0, 0, 0, time.UTC)
		res, err := runner.Build(context.Background(), p, runner.Options{Compile: opts, Threads: 2, Trace: &tr, Out: &strings.Builder{}})
		if err != nil || !res.OK() || res.Succeeded != 5 {
			t.Fatalf("build: %v %+v", err, res)
		}
		return tr.String()
	}
	count := func(tr, what string) int {
		n := 0
		for _, l := range strings.Split(tr, "\n") {
			if !strings.HasPrefix(l, "trace p/") {
				continue
			}
			// "kind:relation" matches the trace's kind column exactly: the
			// column is padded, so a fixed run of spaces depends on how
			// long the step took (CI saw 14.6ms and missed it).
			if kind, ok := strings.CutPrefix(what, "kind:"); ok {
				if f := strings.Fields(l); len(f) > 2 && f[2] == kind {
					n++
				}
			} else if strings.Contains(l, what) {
				n++
			}
		}
		return n
	}
	trace() // creates the table
	tr := trace()
	for what, want := range map[string]int{"information_schema.tables": 1, "kind:relation": 1, "CREATE TABLE IF NOT EXISTS": 1, "idemc_describe": 5, "DELETE FROM": 5} {
		if got := count(tr, what); got != want {
			t.Errorf("%d statements with %q for 5 partitions, want %d:\n%s", got, what, want, tr)
		}
	}
	// A new column: the first partition syncs it, the others reuse that.
	writeModel(t, dir, "p", `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
on_schema_change = "append_new_columns"
*/
SELECT {{ start }} AS d, 1 AS n, 2 AS m`)
	tr = trace()
	if got := count(tr, `ADD COLUMN "m"`); got != 1 {
		t.Errorf("%d ALTERs adding m, want 1:\n%s", got, tr)
	}
	if got := count(tr, `INSERT INTO "main"."p" ("d", "n", "m")`); got != 5 {
		t.Errorf("%d inserts with the new column, want 5:\n%s", got, tr)
	}
}

func writeModel(t *testing.T, dir, name, sql string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "models", name+".sql"), []byte(sql), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestKindReadOncePerRun: the destinations' kinds come from one catalog
// listing per run, not a query per table unit (issue 18: ~1 ms of every
// unit on DuckDB).
func TestKindReadOncePerRun(t *testing.T) {
	models := map[string]string{}
	for _, m := range []string{"a", "b", "c"} {
		models[m] = "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x"
	}
	models["v"] = "/* idemc\nmaterialized = \"view\"\n*/\nSELECT 1 AS x"
	dir := writeProject(t, models)
	build(t, dir, compiler.Options{}, 1)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tr strings.Builder
	res, err := runner.Build(context.Background(), p, runner.Options{Compile: compiler.Options{Models: true, FullRefresh: true}, Threads: 2, Trace: &tr, Out: &strings.Builder{}})
	if err != nil || !res.OK() || res.Succeeded != 4 {
		t.Fatalf("build: %v %+v", err, res)
	}
	if n := strings.Count(tr.String(), "information_schema.tables"); n != 2 { // the run's relations, then their kinds
		t.Errorf("%d information_schema.tables queries, want 2:\n%s", n, tr.String())
	}
	// A view that becomes a table still is replaced (its kind was read).
	writeModel(t, dir, "v", "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 2 AS x")
	if res := build(t, dir, compiler.Options{}, 1); res.Succeeded != 1 {
		t.Fatalf("%d units ran after v became a table, want 1", res.Succeeded)
	}
}

// TestNoOpBuildReadsTheAuditOnce: a build with nothing to do reads the
// audit table twice — the running rows and every unit's latest row (whose
// attempt is its highest) — not a third time for the attempts (issue 18:
// each read is a scan of the whole history).
func TestNoOpBuildReadsTheAuditOnce(t *testing.T) {
	dir := writeProject(t, map[string]string{"a": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x"})
	build(t, dir, compiler.Options{}, 1)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tr strings.Builder
	res, err := runner.Build(context.Background(), p, runner.Options{Compile: compiler.Options{Models: true}, Threads: 1, Trace: &tr, Out: &strings.Builder{}})
	if err != nil || res.UpToDate != 1 {
		t.Fatalf("build: %v %+v", err, res)
	}
	if n, m := strings.Count(tr.String(), "max(attempt)"), strings.Count(tr.String(), "SELECT job_name, partition_key, status"); n != 0 || m != 1 {
		t.Errorf("%d attempt aggregates and %d latest-row reads of the audit table, want 0 and 1:\n%s", n, m, tr.String())
	}
	// The next forced run's attempt follows the latest.
	res = build(t, dir, compiler.Options{FullRefresh: true}, 1)
	if res.Succeeded != 1 {
		t.Fatalf("%+v", res)
	}
	st, err := runner.Status(context.Background(), p, compiler.Options{})
	if err != nil || len(st) != 1 || st[0].Attempt != 2 {
		t.Fatalf("status %+v %v, want attempt 2", st, err)
	}
}

// TestNotSentStepsReachTheHooks: a partition whose prepare steps are not
// sent (an earlier unit of the run sent them) still passes them to the
// step hooks, so that a fault rule at prepare fires on any partition, and
// a failure there fails the unit cleanly (the MySQL fault suite once saw a
// fail:<unit>:prepare rule never fire on a later partition).
func TestNotSentStepsReachTheHooks(t *testing.T) {
	dir := writeProject(t, map[string]string{"p": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
*/
SELECT {{ start }} AS d, 1 AS n`})
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	build := func(hook runner.StepHook) *runner.Result {
		t.Helper()
		opts := compiler.Options{Start: "2026-07-01", End: "2026-07-04", Models: true, AsOf: time.Date(2026, 7, 11, 0, 0, 0, 0, time.UTC)}
		res, err := runner.Build(context.Background(), p, runner.Options{Compile: opts, Threads: 1, AfterStep: hook, Out: &strings.Builder{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	var mu sync.Mutex
	seen := map[string]int{}
	build(func(_ context.Context, unit string, pu plan.Purpose) error {
		if pu == plan.Prepare {
			mu.Lock()
			seen[unit]++
			mu.Unlock()
		}
		return nil
	})
	for _, u := range []string{"p/2026-07-01", "p/2026-07-02", "p/2026-07-03"} {
		if seen[u] == 0 {
			t.Errorf("%s: no prepare step reached the hook (seen %v)", u, seen)
		}
	}
	// A failure injected after the third partition's (not sent) prepare
	// step fails that unit alone.
	res := build(func(_ context.Context, unit string, pu plan.Purpose) error {
		if unit == "p/2026-07-03" && pu == plan.Prepare {
			return errors.New("injected")
		}
		return nil
	})
	if res.Succeeded != 2 || res.Failed != 1 {
		t.Fatalf("after a failure at the third partition's prepare step: %d succeeded, %d failed, want 2 and 1", res.Succeeded, res.Failed)
	}
}
