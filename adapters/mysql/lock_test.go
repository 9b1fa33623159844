package mysql

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// TestLockTaken: only GET_LOCK's 1 is the lock; 0 (a wait that timed out),
// NULL (not taken) and no row are ErrLocked, naming the lock.
func TestLockTaken(t *testing.T) {
	step := &plan.Step{Purpose: plan.Lock, SQL: "SELECT GET_LOCK('idemc:s.t', 5)",
		Lock: &plan.LockSpec{Key: "`s`.`t`", Timeout: 5 * time.Second, Release: "SELECT RELEASE_LOCK('idemc:s.t')"}}
	for _, c := range []struct {
		rows [][]string
		want string // "" taken
	}{
		{[][]string{{"1"}}, ""},
		{[][]string{{"0"}}, "the wait for the lock of `s`.`t` timed out after 5s"},
		{[][]string{{"NULL"}}, "GET_LOCK answered NULL, so the lock of `s`.`t` was not taken"},
		{nil, "GET_LOCK answered no row"},
	} {
		err := lockTaken(step, c.rows)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%v: %v, want the lock", c.rows, err)
		case c.want != "" && (!errors.Is(err, adapters.ErrLocked) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%v: %v, want ErrLocked saying %q", c.rows, err, c.want)
		}
	}
}
