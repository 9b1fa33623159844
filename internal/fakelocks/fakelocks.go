// Package fakelocks is the lock table of unit claims (idemc_locks,
// adapters/sqlgen/claim.go) for the fake engines of tests: it answers the
// claims, holder reads and deletes as an engine would, so that a fake
// run's claim finds itself the holder, or a test's other run.
package fakelocks

import (
	"regexp"
	"strings"
	"sync"
)

// Table is a fake engine's lock table; its zero value is empty.
type Table struct {
	mu   sync.Mutex
	rows map[string]string // lock_key → run_id
}

var (
	claimKeyRe = regexp.MustCompile(`lock_key = '((?:[^'\\]|\\.|'')*)'`)
	claimRunRe = regexp.MustCompile(`run_id = '((?:[^'\\]|\\.|'')*)'`)
	claimValRe = regexp.MustCompile(`VALUES \('(?:[^'\\]|\\.|'')*', '((?:[^'\\]|\\.|'')*)'`)
)

// IsLockTable reports a statement or query on the lock table.
func IsLockTable(q string) bool { return strings.Contains(strings.ToLower(q), "idemc_locks") }

// Answer runs q if it is a statement or query on the lock table: handled
// says so, and rows are a holder read's answer.
func (f *Table) Answer(q string) (rows [][]string, handled bool) {
	rows, _, handled = f.Exec(q)
	return rows, handled
}

// Exec is Answer also giving the rows a statement inserted or deleted, as
// an engine that counts a claim's rows reports them.
func (f *Table) Exec(q string) (rows [][]string, affected int64, handled bool) {
	if !IsLockTable(q) {
		return nil, 0, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows == nil {
		f.rows = map[string]string{}
	}
	key, run := submatch(claimKeyRe, q), submatch(claimRunRe, q)
	switch t := strings.TrimSpace(q); {
	case strings.HasPrefix(t, "MERGE INTO"):
		if _, ok := f.rows[key]; !ok {
			f.rows[key] = submatch(claimValRe, q)
			affected = 1
		}
	case strings.HasPrefix(t, "SELECT run_id"):
		if holder, ok := f.rows[key]; ok {
			return [][]string{{holder}}, 0, true
		}
	case strings.HasPrefix(t, "DELETE FROM") && key != "":
		if f.rows[key] == run {
			delete(f.rows, key)
			affected = 1
		}
	case strings.HasPrefix(t, "DELETE FROM"):
		for k, r := range f.rows {
			if r == run {
				delete(f.rows, k)
				affected++
			}
		}
	}
	return nil, affected, true
}

// Holder is the run holding key ("" none).
func (f *Table) Holder(key string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rows[key]
}

// Set makes run the holder of key.
func (f *Table) Set(key, run string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows == nil {
		f.rows = map[string]string{}
	}
	f.rows[key] = run
}

// Len is the number of claimed keys.
func (f *Table) Len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.rows)
}

func submatch(re *regexp.Regexp, q string) string {
	if m := re.FindStringSubmatch(q); m != nil {
		return m[1]
	}
	return ""
}
