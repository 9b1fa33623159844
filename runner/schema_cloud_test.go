package runner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/bigquery"
	bqdialect "github.com/idemc/idemc/adapters/bigquery/dialect"
	_ "github.com/idemc/idemc/adapters/spark" // registers the dialect
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/fakelocks"
	"github.com/idemc/idemc/plan"
)

// recorder is a scripted engine for BigQuery and Spark units: it answers
// the destination's and the batch's columns, fails the check whose query
// contains failOn, and records every statement. With script set it acts
// like the BigQuery Session: statements between BEGIN TRANSACTION and
// COMMIT TRANSACTION are buffered and a failing ASSERT fails the COMMIT.
type recorder struct {
	adapters.Engine
	mu           sync.Mutex
	dest, batch  []plan.Column
	failOn       string
	script, inTx bool
	failing      bool   // a buffered ASSERT fails at COMMIT
	failExec     string // a statement containing it fails
	killAfter    string // after a statement containing it, every statement fails
	killed       bool
	ran          []string
	locks        fakelocks.Table
}

func (e *recorder) Session(context.Context) (adapters.Session, error) { return e, nil }
func (e *recorder) Close() error                                      { return nil }

func (e *recorder) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	return execStep(ctx, e, st)
}

func (e *recorder) run(_ context.Context, q string) (int64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.killed {
		return 0, errKilled
	}
	e.ran = append(e.ran, q)
	e.killed = e.killAfter != "" && strings.Contains(q, e.killAfter)
	if _, ok := e.locks.Answer(q); ok {
		return 1, nil
	}
	if e.failExec != "" && strings.Contains(q, e.failExec) {
		return 0, &engineFailure{"Access Denied: " + e.failExec}
	}
	switch strings.TrimSpace(q) {
	case bqdialect.BeginSQL:
		e.inTx, e.failing = true, false
	case bqdialect.RollbackSQL:
		e.inTx = false
	case bqdialect.CommitSQL:
		e.inTx = false
		if e.failing {
			return 0, &engineFailure{"idemc: check failed"}
		}
	}
	return 1, nil
}

type engineFailure struct{ msg string }

func (c *engineFailure) Error() string { return c.msg }

func (e *recorder) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.killed {
		return nil, nil, errKilled
	}
	e.ran = append(e.ran, q)
	if rows, ok := e.locks.Answer(q); ok {
		return []string{"run_id"}, rows, nil
	}
	fails := e.failOn != "" && strings.Contains(q, e.failOn)
	switch {
	case e.script && e.inTx:
		e.failing = e.failing || fails
		return nil, nil, nil // an ASSERT: the verdict comes at COMMIT
	case fails:
		return []string{"x"}, [][]string{{"1"}}, nil
	case strings.HasPrefix(q, "SELECT count(*) FROM "):
		return []string{"n"}, [][]string{{"3"}}, nil
	}
	return []string{"x"}, nil, nil
}

func (e *recorder) Columns(context.Context, string) ([]plan.Column, error) { return e.batch, nil }
func (e *recorder) Relation(context.Context, plan.Relation) ([]plan.Column, bool, error) {
	return e.dest, true, nil
}

// cloudRun is a run of one unit of w on the recorder, with engine's dialect.
func cloudRun(t *testing.T, engine string, e *recorder, w *plan.Write, mode string) (*run, *plan.Unit) {
	t.Helper()
	ad, ok := adapters.Lookup(engine)
	if !ok {
		t.Fatalf("%s is not registered", engine)
	}
	w.Audit = &plan.AuditRow{}
	part := ""
	if w.Window != nil {
		part = w.Window.Key
	}
	u := &plan.Unit{ID: w.Model + "/" + part, Model: w.Model, Partition: part, Write: w}
	r := &run{p: &project.Project{Root: t.TempDir()}, eng: e, ad: ad, d: ad.Dialect,
		res:   &Result{RunID: "20260701T000000.000Z-0000abcd"},
		pl:    &plan.Plan{Target: engine, Nodes: map[string]*plan.Node{w.Model: {OnSchemaChange: mode}}},
		state: w.State, db: &dbState{attempts: map[[2]string]int64{}}, ddl: map[plan.Relation]*sync.Mutex{}}
	return r, u
}

// writesTo reports whether a statement changes rel (quoted q): DDL or DML
// on it, or a BigQuery job whose destination it is. Reading it (a copy's
// source) and creating it only when missing do not count.
func writesTo(stmt, q, plain string) bool {
	s := strings.TrimSpace(stmt)
	if strings.HasPrefix(s, "/* idemc:") {
		head, rest, _ := strings.Cut(s, "*/")
		if strings.Contains(head, "destination="+plain+"$") || strings.Contains(head, "destination="+plain+" ") {
			return true
		}
		s = strings.TrimSpace(rest)
	}
	for _, p := range []string{"ALTER TABLE ", "DROP TABLE IF EXISTS ", "DROP TABLE ", "DROP VIEW IF EXISTS ", "CREATE OR REPLACE TABLE ",
		"CREATE OR REPLACE VIEW ", "TRUNCATE TABLE ", "INSERT INTO ", "INSERT OVERWRITE TABLE ", "INSERT OVERWRITE INTO ", "DELETE FROM ", "MERGE INTO ", "UPDATE "} {
		if rest, ok := strings.CutPrefix(s, p+q); ok && (rest == "" || strings.ContainsAny(rest[:1], " \n(;")) {
			return true
		}
	}
	return false
}

// cloudCase is a unit whose columns changed: dest are the destination's,
// batch the model's.
type cloudCase struct {
	name        string
	dest, batch []plan.Column
	write       func() *plan.Write
}

func cloudCases(intT, wideT string) []cloudCase {
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	partitioned := func() *plan.Write {
		return &plan.Write{Model: "events", Materialized: plan.Incremental, Strategy: "delete_insert",
			Target: plan.Relation{Schema: "analytics", Name: "events"}, PartitionBy: "d",
			Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
			Select: "SELECT id, d, amount FROM raw.events", State: plan.StateIn("analytics"),
			Checks: []*plan.Check{{Name: "not_null(amount)", Kind: plan.CheckNotNull, Severity: "error", Columns: []string{"amount"}}}}
	}
	refresh := func() *plan.Write {
		w := partitioned()
		w.Window, w.PartitionBy, w.Strategy, w.UniqueKey, w.FullRefresh = nil, "", "merge", []string{"id"}, true
		return w
	}
	overwrite := func() *plan.Write {
		w := partitioned()
		w.Strategy = "insert_overwrite"
		return w
	}
	table := func() *plan.Write {
		w := partitioned()
		w.Materialized, w.Window, w.PartitionBy, w.Strategy = plan.Table, nil, "", ""
		return w
	}
	base := []plan.Column{{Name: "id", Type: intT}, {Name: "d", Type: "DATE"}, {Name: "amount", Type: intT}}
	plus := func(c ...plan.Column) []plan.Column {
		return append(append([]plan.Column{}, base...), c...)
	}
	retyped := []plan.Column{base[0], base[1], {Name: "amount", Type: wideT}}
	return []cloudCase{
		{"add a column", base, plus(plan.Column{Name: "note", Type: "STRING"}), partitioned},
		{"drop a column", plus(plan.Column{Name: "old", Type: "STRING"}), base, partitioned},
		{"retype a column", base, retyped, partitioned},
		{"insert_overwrite, a column added", base, plus(plan.Column{Name: "note", Type: "STRING"}), overwrite},
		{"full refresh, columns added and dropped", plus(plan.Column{Name: "old", Type: "STRING"}), plus(plan.Column{Name: "note", Type: "STRING"}), refresh},
		{"full refresh, a column retyped", base, retyped, refresh},
		{"table model, a column dropped", plus(plan.Column{Name: "old", Type: "STRING"}), base, table},
	}
}

// TestCloudColumnChangeThenFailedCheck (issue 17, item 1): on BigQuery and
// Spark a unit that changes its destination's columns and then fails a
// check leaves the destination untouched — no statement alters, drops or
// writes it — and a unit that passes changes it in one publish statement,
// after every check.
func TestCloudColumnChangeThenFailedCheck(t *testing.T) {
	for _, eng := range []struct {
		name, intT, wideT, failOn string
		script                    bool
	}{
		{"bigquery", "INTEGER", "FLOAT", "`amount` IS NULL", true},
		{"spark", "INTEGER", "LONG", "`amount` IS NULL", false},
	} {
		for _, c := range cloudCases(eng.intT, eng.wideT) {
			for _, fail := range []bool{true, false} {
				name := eng.name + "/" + c.name + "/check passes"
				if fail {
					name = eng.name + "/" + c.name + "/check fails"
				}
				t.Run(name, func(t *testing.T) {
					e := &recorder{dest: c.dest, batch: c.batch, script: eng.script}
					if fail {
						e.failOn = eng.failOn
					}
					w := c.write()
					r, u := cloudRun(t, eng.name, e, w, "sync_all_columns")
					ur := r.runUnit(context.Background(), u)
					want := StatusSucceeded
					if fail {
						want = StatusFailed
					}
					if ur.Status != want {
						t.Fatalf("status %s (%s), want %s; statements:\n%s", ur.Status, ur.Error, want, strings.Join(e.ran, ";\n"))
					}
					q, plain := r.d.Qualify(w.Target), "analytics."+w.Target.Name
					var writes []int
					lastCheck := -1
					for i, s := range e.ran {
						if writesTo(s, q, plain) {
							writes = append(writes, i)
						}
						if strings.Contains(s, eng.failOn) {
							lastCheck = i
						}
					}
					switch {
					case fail && len(writes) > 0:
						t.Fatalf("a failed unit changed the destination:\n%s", e.ran[writes[0]])
					case !fail && len(writes) != 1:
						t.Fatalf("want one publish statement writing the destination, got %d:\n%s", len(writes), strings.Join(e.ran, ";\n"))
					case !fail && writes[0] < lastCheck:
						t.Fatalf("the destination was written before its check:\n%s", e.ran[writes[0]])
					}
				})
			}
		}
	}
}

// TestAsideRecipeShapes: the copy-and-swap recipe of a column change per
// engine. BigQuery: the copy (DDL), the script on it, the swap job, then a
// second script for the audit row; its insert_overwrite and Spark have no
// transaction: write the copy, swap, then the audit row. Snowflake: no
// BEGIN before the copy (its DDL would commit it).
func TestAsideRecipeShapes(t *testing.T) {
	for _, c := range []struct {
		engine, strategy, want string
	}{
		{"bigquery", "delete_insert", "audit_start lock schema schema schema begin delete insert validate check commit publish cleanup begin audit_finish commit cleanup cleanup"},
		{"bigquery", "insert_overwrite", "audit_start lock schema schema schema stage validate check publish publish cleanup audit_finish cleanup cleanup cleanup"},
		{"spark", "delete_insert", "audit_start lock schema schema schema stage validate check publish publish insert cleanup cleanup publish cleanup audit_finish cleanup cleanup cleanup"},
		{"snowflake", "delete_insert", "audit_start lock schema schema schema begin delete insert validate check commit publish cleanup begin audit_finish commit cleanup cleanup cleanup"},
	} {
		ad, _ := adapters.Lookup(c.engine)
		r := &run{d: ad.Dialect, ad: ad}
		w := cloudCases("INTEGER", "FLOAT")[0].write()
		w.Strategy, w.Columns = c.strategy, []string{"id", "d", "amount", "note"}
		aside := r.asideOf(w.Target, "__idemc_new")
		alter := plan.Step{Purpose: plan.SchemaStep, SQL: r.d.AddColumn(aside, plan.Column{Name: "note", Type: "STRING"})}
		steps := asideRecipe(r.d, w, alter)
		if got := purposes(steps); got != c.want {
			t.Errorf("%s %s:\n got %s\nwant %s", c.engine, c.strategy, got, c.want)
		}
	}
}

// TestCloudRetypeTrialFails: when the scratch copy a retype is tried on
// cannot be made (not the data: a permission), a full refresh fails the
// unit; it used to drop the destination and recreate it before the swap.
func TestCloudRetypeTrialFails(t *testing.T) {
	c := cloudCases("INTEGER", "FLOAT")[5]
	if c.name != "full refresh, a column retyped" {
		t.Fatal(c.name)
	}
	e := &recorder{dest: c.dest, batch: c.batch, script: true, failExec: "__idemc_try`"}
	w := c.write()
	r, u := cloudRun(t, "bigquery", e, w, "sync_all_columns")
	if ur := r.runUnit(context.Background(), u); ur.Status != "failed" || !strings.Contains(ur.Error, "Access Denied") {
		t.Fatalf("status %s (%s), want failed with the copy's error", ur.Status, ur.Error)
	}
	for _, s := range e.ran {
		if writesTo(s, r.d.Qualify(w.Target), "analytics.events") {
			t.Fatalf("the destination was changed:\n%s", s)
		}
	}
}

// TestCloudKilledAfterSwap: a run killed right after the swap leaves the
// new table and its running row; the next run, which finds the model's
// columns in place, redoes the unit with its plain recipe (no copy).
func TestCloudKilledAfterSwap(t *testing.T) {
	for _, eng := range []struct{ name, swap string }{{"bigquery", "CLONE `analytics`.`events__idemc_new`"}, {"spark", "SELECT * FROM `analytics`.`events__idemc_new`"}} {
		c := cloudCases("INTEGER", "FLOAT")[1] // drop a column
		e := &recorder{dest: c.dest, batch: c.batch, script: eng.name == "bigquery", killAfter: eng.swap}
		r, u := cloudRun(t, eng.name, e, c.write(), "sync_all_columns")
		if ur := r.runUnit(context.Background(), u); ur.Status != "failed" || !e.killed {
			t.Fatalf("%s: the kill after the swap did not happen (%s)", eng.name, ur.Status)
		}
		again := &recorder{dest: c.batch, batch: c.batch, script: eng.name == "bigquery"}
		r, u = cloudRun(t, eng.name, again, c.write(), "sync_all_columns")
		if ur := r.runUnit(context.Background(), u); ur.Status != "succeeded" {
			t.Fatalf("%s: rerun %s (%s)", eng.name, ur.Status, ur.Error)
		}
		for _, q := range again.ran {
			if strings.Contains(q, "__idemc_new") || strings.HasPrefix(q, "ALTER TABLE") {
				t.Errorf("%s: the rerun changed columns again:\n%s", eng.name, q)
			}
		}
	}
}
