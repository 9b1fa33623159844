package runner_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// TestRunningRowsClaimedTogether: the running rows of units ready together
// (the plan's roots) are committed by one statement per 64 units, before
// any of them writes (issue 18: a running row committed on its own per
// unit); a claimed unit that never starts (fail-fast after a failure)
// leaves no row, and a unit that did start has exactly one.
func TestRunningRowsClaimedTogether(t *testing.T) {
	models := map[string]string{}
	for i := 0; i < 70; i++ {
		models[fmt.Sprintf("m%02d", i)] = fmt.Sprintf("/* idemc\nmaterialized = \"table\"\n*/\nSELECT %d AS x", i)
	}
	dir := writeProject(t, models)
	run := func(opts runner.Options) (*runner.Result, string) {
		t.Helper()
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		var tr strings.Builder
		opts.Trace, opts.Out, opts.Threads = &tr, &strings.Builder{}, 1
		opts.Compile.Models, opts.Compile.AsOf = true, time.Date(2026, 7, 11, 0, 0, 0, 0, time.UTC)
		res, err := runner.Build(context.Background(), p, opts)
		if err != nil {
			t.Fatal(err)
		}
		return res, tr.String()
	}
	res, tr := run(runner.Options{})
	if res.Succeeded != 70 {
		t.Fatalf("%d succeeded, want 70", res.Succeeded)
	}
	if n := strings.Count(tr, `INSERT INTO "main"."idemc_audit"`); n != 2 {
		t.Errorf("%d running-row statements for 70 ready units, want 2 (64 + 6):\n%s", n, tr)
	}
	db, err := sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count("SELECT count(*) FROM main.idemc_audit WHERE status = 'succeeded'"); n != 70 {
		t.Errorf("%d succeeded rows, want 70", n)
	}
	db.Close()

	// m00 fails; with fail-fast no other unit starts: their claimed rows
	// are deleted, so that they look as they did before the run.
	writeModel(t, dir, "m00", "/* idemc\nmaterialized = \"table\"\n[checks]\nexpect = [\"x > 100\"]\n*/\nSELECT 0 AS x")
	res, _ = run(runner.Options{FailFast: true, Compile: compiler.Options{FullRefresh: true}})
	if res.Failed != 1 {
		t.Fatalf("%d failed, want 1: %+v", res.Failed, res.Units)
	}
	db, err = sql.Open("duckdb", filepath.Join(dir, "target", "w.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := count("SELECT count(*) FROM main.idemc_audit WHERE status = 'running'"); n != 0 {
		t.Errorf("%d running rows left after the run", n)
	}
	started := count("SELECT count(*) FROM main.idemc_audit WHERE run_id = '" + res.RunID + "'")
	if started != res.Failed+res.Succeeded {
		t.Errorf("%d audit rows of the run, want one per unit that ran (%d)", started, res.Failed+res.Succeeded)
	}
}
