package mysql_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/conformance"
	"github.com/idemc/idemc/plan"
)

// TestLockStepNotTaken: the MySQL session reads GET_LOCK's answer itself
// and returns ErrLocked when it is not 1: 0 after a wait that timed out
// (another session holds the lock) and NULL (MariaDB's answer for a
// lock it could not take). The runner used to read the row, and a NULL
// once let a unit write without the lock.
func TestLockStepNotTaken(t *testing.T) {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	ad, _ := adapters.Lookup("mysql")
	ctx := context.Background()
	eng, err := ad.Open(ctx, map[string]string{"dsn": dsn})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	holder, _ := eng.Session(ctx)
	defer holder.Close()
	waiter, _ := eng.Session(ctx)
	defer waiter.Close()
	const name = "'idemc:lock_live_test'"
	if _, err := adapters.ExecSQL(ctx, holder, "SELECT GET_LOCK("+name+", 0)"); err != nil {
		t.Fatal(err)
	}
	defer adapters.ExecSQL(ctx, holder, "SELECT RELEASE_LOCK("+name+")")
	lock := func(sql string) *plan.Step {
		return &plan.Step{Purpose: plan.Lock, SQL: sql, Lock: &plan.LockSpec{Key: "`s`.`t`", Timeout: time.Second, Release: "SELECT RELEASE_LOCK(" + name + ")"}}
	}
	t0 := time.Now()
	_, err = waiter.Exec(ctx, lock("SELECT GET_LOCK("+name+", 1)"))
	if !errors.Is(err, adapters.ErrLocked) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("a lock held by another session: got %v, want a timed-out wait wrapping ErrLocked", err)
	}
	if waited := time.Since(t0); waited < 900*time.Millisecond {
		t.Errorf("GET_LOCK answered after %v: it did not wait its timeout", waited)
	}
	switch _, err := waiter.Exec(ctx, lock("SELECT GET_LOCK(NULL, 1)")); {
	case errors.Is(err, adapters.ErrLocked):
	case err != nil && strings.Contains(err.Error(), "Incorrect user-level lock name"):
		t.Log("this server refuses a NULL lock name instead of answering NULL (MySQL 8)")
	default:
		t.Fatalf("GET_LOCK answering NULL: got %v, want ErrLocked", err)
	}
	if _, err := holder.Exec(ctx, lock("SELECT GET_LOCK('idemc:lock_live_free', 1)")); err != nil {
		t.Fatalf("a free lock: %v", err)
	}
	_, _ = adapters.ExecSQL(ctx, holder, "SELECT RELEASE_LOCK('idemc:lock_live_free')")
}
