package runner

import (
	"context"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/mysql"
	mysqldialect "github.com/idemc/idemc/adapters/mysql/dialect"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// liveMySQL opens the MariaDB/MySQL server of IDEMC_MYSQL_DSN, or skips
// (fails with IDEMC_REQUIRE_LIVE=1) when it does not answer.
func liveMySQL(t *testing.T) adapters.Engine {
	t.Helper()
	dsn := os.Getenv("IDEMC_MYSQL_DSN")
	if dsn == "" {
		dsn = "root@tcp(127.0.0.1:3306)/test"
	}
	ad, _ := adapters.Lookup("mysql")
	eng, err := ad.Open(context.Background(), map[string]string{"dsn": dsn})
	if err == nil {
		var s adapters.Session
		if s, err = eng.Session(context.Background()); err == nil {
			s.Close()
		}
	}
	if err != nil {
		if os.Getenv("IDEMC_REQUIRE_LIVE") == "1" {
			t.Fatalf("mysql is required (IDEMC_REQUIRE_LIVE=1) but does not answer: %v", err)
		}
		t.Skipf("mysql does not answer (%v)", err)
	}
	t.Cleanup(func() { eng.Close() })
	return eng
}

// TestUnitLockedByAnotherSessionLive: on the live server, a unit whose
// destination's GET_LOCK is held by another session waits its timeout,
// then fails as locked by another run, and writes nothing (its audit row
// says failed); once the lock is free the same unit writes its row.
func TestUnitLockedByAnotherSessionLive(t *testing.T) {
	eng := liveMySQL(t)
	ctx := context.Background()
	admin, _ := eng.Session(ctx)
	defer admin.Close()
	const schema = "idemc_lock_live"
	exec := func(s adapters.Session, q string) {
		t.Helper()
		if _, err := adapters.ExecSQL(ctx, s, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec(admin, "DROP DATABASE IF EXISTS "+schema)
	exec(admin, "CREATE DATABASE "+schema)
	defer adapters.ExecSQL(ctx, admin, "DROP DATABASE IF EXISTS "+schema)
	d := mysqldialect.NewDialect()
	d.LockWait = time.Second
	state := plan.StateIn(schema)
	for _, q := range d.StateDDL(state) {
		exec(admin, q)
	}
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "daily", Materialized: plan.Incremental, Strategy: "delete_insert",
		Target: plan.Relation{Schema: schema, Name: "daily"}, Select: "SELECT DATE '2026-07-01' AS d, 1 AS n", PartitionBy: "d",
		Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-01"},
		State:  state, Audit: &plan.AuditRow{}}
	ad, _ := adapters.Lookup("mysql")
	unit := func() *UnitResult {
		u := &plan.Unit{ID: "daily/2026-07-01", Model: "daily", Partition: "2026-07-01", Write: w}
		r := &run{p: &project.Project{Root: t.TempDir()}, eng: eng, ad: ad, d: d,
			res: &Result{RunID: NewRunID(time.Now())}, pl: &plan.Plan{Target: "mysql", Nodes: map[string]*plan.Node{}},
			state: state, db: &dbState{attempts: map[[2]string]int64{}}, ddl: map[plan.Relation]*sync.Mutex{}}
		return r.runUnit(ctx, u)
	}
	count := func(q string) string {
		t.Helper()
		_, rows, err := admin.Query(ctx, q, 1)
		if err != nil || len(rows) == 0 {
			t.Fatalf("%s: %v", q, err)
		}
		return rows[0][0]
	}

	holder, _ := eng.Session(ctx)
	defer holder.Close()
	exec(holder, "SELECT GET_LOCK("+d.String(d.LockName(w))+", 0)")
	ur := unit()
	if ur.Status != StatusFailed || !strings.Contains(ur.Error, "locked by another run") {
		t.Fatalf("status %s error %q, want failed as locked by another run", ur.Status, ur.Error)
	}
	if n := count("SELECT count(*) FROM " + d.Qualify(w.Target)); n != "0" {
		t.Errorf("the locked unit wrote %s rows", n)
	}
	if s := count("SELECT status FROM " + d.Qualify(state.Audit) + " WHERE job_name = 'daily'"); s != "failed" {
		t.Errorf("the locked unit's audit row says %s, want failed", s)
	}

	exec(holder, "SELECT RELEASE_LOCK("+d.String(d.LockName(w))+")")
	if ur := unit(); ur.Status != StatusSucceeded {
		t.Fatalf("with the lock free: status %s error %q", ur.Status, ur.Error)
	}
	if n := count("SELECT count(*) FROM " + d.Qualify(w.Target)); n != "1" {
		t.Errorf("with the lock free the unit wrote %s rows, want 1", n)
	}
}
