package mysql

import (
	"errors"
	"fmt"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"
)

// TestLostDDLRace: which errors of CREATE … IF NOT EXISTS the runner runs
// again (a concurrent creator), and which fail at once.
func TestLostDDLRace(t *testing.T) {
	e := &Engine{}
	for _, tc := range []struct {
		name string
		err  error
		race bool
	}{
		{"table exists", &gomysql.MySQLError{Number: 1050, Message: "Table 't' already exists"}, true},
		{"wrapped", fmt.Errorf("creating: %w", &gomysql.MySQLError{Number: 1050}), true},
		{"access denied", &gomysql.MySQLError{Number: 1044, Message: "Access denied for user"}, false},
		{"syntax", &gomysql.MySQLError{Number: 1064}, false},
		{"deadlock (a unit's retry, not DDL's)", &gomysql.MySQLError{Number: 1213}, false},
		{"not a server error", errors.New("Table 't' already exists"), false},
	} {
		if got := e.LostDDLRace(tc.err); got != tc.race {
			t.Errorf("%s: LostDDLRace = %v, want %v", tc.name, got, tc.race)
		}
	}
}
