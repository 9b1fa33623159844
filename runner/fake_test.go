package runner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/fakelocks"
	"github.com/idemc/idemc/plan"
)

// The scripted fake server of the runner's failure-path tests: it answers
// every statement of a unit without a database, logs what it was sent and
// fails the statement the test names, once (retryable) or for good.

var (
	errFakeFailure  = errors.New("fake: the statement failed")
	errFakeConflict = errors.New("fake: deadlock, retry the transaction")
)

type fakeServer struct {
	mu     sync.Mutex
	log    []string // every statement, in order
	failed []bool   // which of them failed
	held   map[string]int
	// fail fails the nth statement (from 0) whose stmtKey is fail, and
	// every later one, with err; only that one when err is errFakeConflict
	// (a retry succeeds). By stmtKey: timestamps differ by run.
	fail string
	nth  int
	seen int
	err  error
	// dest is what Relation answers for the destination (nil: missing).
	dest []plan.Column
	// locks is the lock table of the engines with unit claims.
	locks fakelocks.Table
	// slow is how long a statement takes (nil: no time).
	slow func(q string) time.Duration
}

func (s *fakeServer) record(q string) error {
	if s.slow != nil {
		time.Sleep(s.slow(q))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, q)
	bad := false
	if s.fail != "" && stmtKey(q) == s.fail {
		bad = s.seen == s.nth || s.seen > s.nth && s.err != errFakeConflict
		s.seen++
	}
	s.failed = append(s.failed, bad)
	if bad {
		return s.err
	}
	return nil
}

// stmtKey names a statement across runs: its first line without the
// timestamps of the run.
func stmtKey(q string) string {
	return timestamps.ReplaceAllString(firstLine(q), "TIMESTAMP ?")
}

var timestamps = regexp.MustCompile(`TIMESTAMP '[^']*'`)

// failingAt is a server failing statement i of a clean run.
func failingAt(clean []string, i int, err error) *fakeServer {
	s := &fakeServer{held: map[string]int{}, fail: stmtKey(clean[i]), err: err, dest: batchColumns()}
	for _, q := range clean[:i] {
		if stmtKey(q) == s.fail {
			s.nth++
		}
	}
	return s
}

// okAudit counts the statements on the audit table containing sub that
// succeeded (idemc_latest has a row beside each).
func (s *fakeServer) okAudit(sub string) int {
	n := 0
	for i, q := range s.log {
		if strings.Contains(q, sub) && strings.Contains(q, "idemc_audit") && !s.failed[i] {
			n++
		}
	}
	return n
}

// auditOnly are the statements of qs on the audit table.
func auditOnly(qs []string) []string {
	var out []string
	for _, q := range qs {
		if strings.Contains(q, "idemc_audit") {
			out = append(out, q)
		}
	}
	return out
}

// okContaining counts the statements containing sub that succeeded.
func (s *fakeServer) okContaining(sub string) int {
	n := 0
	for i, q := range s.log {
		if strings.Contains(q, sub) && !s.failed[i] {
			n++
		}
	}
	return n
}

type fakeEngine struct {
	adapters.Engine // nil: only Session and Retryable are used
	srv             *fakeServer
}

func (e *fakeEngine) Session(context.Context) (adapters.Session, error) {
	return &fakeSession{srv: e.srv}, nil
}

func (e *fakeEngine) Retryable(err error) bool { return errors.Is(err, errFakeConflict) }

type fakeSession struct{ srv *fakeServer }

// stepRunner is a fake session's statements and queries.
type stepRunner interface {
	run(ctx context.Context, q string) (int64, error)
	Query(ctx context.Context, q string, limit int) ([]string, [][]string, error)
}

// execStep runs a step on a fake as sqlgen.Session does: a check or a lock
// as a query (a check's rows are its failures), anything else as a
// statement.
func execStep(ctx context.Context, f stepRunner, st *plan.Step) (plan.Result, error) {
	if st.Check != nil || st.Lock != nil {
		cols, rows, err := f.Query(ctx, st.SQL, sqlgen.SampleLimit)
		return plan.Result{Affected: -1, Columns: cols, Rows: rows}, err
	}
	n, err := f.run(ctx, st.SQL)
	return plan.Result{Affected: n}, err
}

func (s *fakeSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	return execStep(ctx, s, st)
}

func (s *fakeSession) run(_ context.Context, q string) (int64, error) {
	if err := s.srv.record(q); err != nil {
		return 0, err
	}
	if _, n, ok := s.srv.locks.Exec(q); ok {
		return n, nil
	}
	if strings.HasPrefix(q, "SELECT RELEASE_LOCK(") {
		s.srv.mu.Lock()
		s.srv.held[lockArg(q)]--
		s.srv.mu.Unlock()
	}
	return 3, nil
}

func (s *fakeSession) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	if err := s.srv.record(q); err != nil {
		return nil, nil, err
	}
	if rows, ok := s.srv.locks.Answer(q); ok {
		return []string{"run_id"}, rows, nil
	}
	if strings.HasPrefix(q, "SELECT GET_LOCK(") {
		s.srv.mu.Lock()
		s.srv.held[lockArg(q)]++
		s.srv.mu.Unlock()
		return []string{"l"}, [][]string{{"1"}}, nil
	}
	return []string{"x"}, nil, nil // a check finds no failing row; a count is 0
}

func (s *fakeSession) Columns(context.Context, string) ([]plan.Column, error) {
	return batchColumns(), nil
}

func (s *fakeSession) Relation(_ context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	return s.srv.dest, s.srv.dest != nil, nil
}

func (s *fakeSession) Close() error { return nil }

func batchColumns() []plan.Column {
	return []plan.Column{{Name: "d", Type: "DATE"}, {Name: "k", Type: "BIGINT"}, {Name: "n", Type: "BIGINT"}}
}

// fakeWrite is one unit of each shape a recipe can have.
func fakeWrite(shape string) *plan.Write {
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "m", Target: plan.Relation{Schema: "s", Name: "m"}, Select: "SELECT d, k, n FROM src",
		State:  plan.StateIn("s"),
		Checks: []*plan.Check{{Name: "not_null(n)", Kind: plan.CheckNotNull, Severity: "error", Columns: []string{"n"}}},
		Audit:  &plan.AuditRow{}}
	switch shape {
	case "delete_insert", "merge":
		w.Materialized, w.Strategy, w.PartitionBy = plan.Incremental, shape, "d"
		w.Window = &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-01"}
		if shape == "merge" {
			w.UniqueKey = []string{"k"}
		}
	case "table", "view":
		w.Materialized = shape
	}
	return w
}

// fakeRun is a run of one unit of the shape on the dialect's engine.
func fakeRun(t *testing.T, engine, shape string, srv *fakeServer, hook StepHook) (*run, *plan.Unit) {
	t.Helper()
	ad, ok := adapters.Lookup(engine)
	if !ok {
		t.Fatalf("%s is not registered", engine)
	}
	w := fakeWrite(shape)
	u := &plan.Unit{ID: "m", Model: "m", Write: w}
	if w.Window != nil {
		u.ID, u.Partition = "m/2026-07-01", "2026-07-01"
	}
	r := &run{p: &project.Project{Root: t.TempDir()}, o: Options{AfterStep: hook}, eng: &fakeEngine{srv: srv}, ad: ad, d: ad.Dialect,
		res: &Result{RunID: "20260701T000000.000Z-0000abcd"}, pl: &plan.Plan{Target: engine, Nodes: map[string]*plan.Node{}},
		state: w.State, db: &dbState{attempts: map[[2]string]int64{}}, ddl: map[plan.Relation]*sync.Mutex{}}
	r.views, _ = ad.Dialect.(adapters.ViewBinder)
	return r, u
}

// traced is a unit's statements, each with the purpose of its step, from a
// run in which nothing failed: the hook after each step names the
// statements sent since the previous one.
func traced(t *testing.T, engine, shape string) ([]string, []plan.Purpose) {
	t.Helper()
	srv := &fakeServer{held: map[string]int{}, dest: batchColumns()}
	var purposes []plan.Purpose
	hook := func(_ context.Context, _ string, p plan.Purpose) error {
		srv.mu.Lock()
		defer srv.mu.Unlock()
		for len(purposes) < len(srv.log) {
			purposes = append(purposes, p)
		}
		return nil
	}
	r, u := fakeRun(t, engine, shape, srv, hook)
	if ur := r.runUnit(context.Background(), u); ur.Status != "succeeded" {
		t.Fatalf("%s %s without a failure: %s %s", engine, shape, ur.Status, ur.Error)
	}
	for len(purposes) < len(srv.log) {
		purposes = append(purposes, plan.Cleanup) // steps the hook does not follow (a release)
	}
	return srv.log, purposes
}

var fakeCases = []struct{ engine, shape string }{
	{"postgres", "delete_insert"}, {"postgres", "merge"}, {"postgres", "table"}, {"postgres", "view"},
	{"mysql", "delete_insert"}, {"mysql", "merge"}, {"mysql", "table"}, {"mysql", "view"},
	{"duckdb", "delete_insert"}, {"duckdb", "merge"}, {"duckdb", "table"}, {"duckdb", "view"},
}

// TestUnitFailsAtEveryStatement fails each statement of a unit in turn
// and checks what the runner sends after it: a rollback when a
// transaction was open, no commit, the cleanup of what the unit created,
// every session lock released as often as it was taken, and one failed
// audit row; a failure after the commit (a cleanup) leaves the unit
// succeeded, one inside the transaction (a stage's drop) fails it.
func TestUnitFailsAtEveryStatement(t *testing.T) {
	for _, c := range fakeCases {
		t.Run(c.engine+"/"+c.shape, func(t *testing.T) {
			clean, purposes := traced(t, c.engine, c.shape)
			for i := range clean {
				srv := failingAt(clean, i, errFakeFailure)
				r, u := fakeRun(t, c.engine, c.shape, srv, nil)
				ur := r.runUnit(context.Background(), u)
				if msg := checkFailure(r.d, clean, purposes, i, srv, ur); msg != "" {
					t.Errorf("statement %d (%s) failed: %s\nstatement: %s\nsent:\n%s", i, purposes[i], msg, firstLine(clean[i]), strings.Join(firstLines(srv.log), "\n"))
				}
			}
		})
	}
}

// checkFailure says what is wrong with what a unit sent after statement
// i failed ("" for nothing).
func checkFailure(d adapters.Dialect, clean []string, purposes []plan.Purpose, i int, srv *fakeServer, ur *UnitResult) string {
	committed := false
	inTx := false
	for _, p := range purposes[:i] {
		switch p {
		case plan.Begin:
			inTx = true
		case plan.Commit:
			inTx, committed = false, true
		}
	}
	for name, n := range srv.held {
		// (A release that fails cannot release: the connection's end does.)
		if n != 0 && !strings.HasPrefix(clean[i], "SELECT RELEASE_LOCK(") {
			return fmt.Sprintf("lock %s still taken %d time(s)", name, n)
		}
	}
	at := firstFailure(srv)
	after := srv.log[at+1:]
	if committed || purposes[i] == plan.Cleanup && !inTx {
		if ur.Status != "succeeded" {
			return fmt.Sprintf("a failure after the commit made the unit %s (%s)", ur.Status, ur.Error)
		}
		return ""
	}
	if ur.Status != "failed" || !strings.Contains(ur.Error, string(purposes[i])) {
		return fmt.Sprintf("status %q error %q: want failed, naming the %s step", ur.Status, ur.Error, purposes[i])
	}
	if inTx && (len(after) == 0 || after[0] != d.Rollback()) {
		return "no rollback right after the failure"
	}
	for _, q := range after {
		if strings.TrimSpace(q) == "COMMIT" {
			return "a COMMIT after the failure"
		}
	}
	if n := srv.okAudit("'running'"); n > 1 || n == 0 && purposes[i] != plan.AuditStart {
		return fmt.Sprintf("%d running audit rows, want 1", n)
	}
	if countContaining(auditOnly(after), "'failed'") != 1 {
		return "no failed audit row after the failure"
	}
	for j, p := range purposes {
		// What the unit created before the failure is dropped after it.
		if p == plan.Cleanup && j > i && !strings.HasPrefix(clean[j], "SELECT RELEASE_LOCK(") && createdBefore(clean, purposes, i, j) && countContaining(after, clean[j]) == 0 {
			return "cleanup not run: " + firstLine(clean[j])
		}
	}
	return ""
}

// createdBefore reports whether the relation cleanup step j drops was
// created by a statement before i.
func createdBefore(clean []string, purposes []plan.Purpose, i, j int) bool {
	for k := 0; k < i; k++ {
		if purposes[k] == plan.Stage && strings.Contains(clean[j], stageName(clean[k])) {
			return true
		}
	}
	return false
}

// stageName is the relation a CREATE … statement creates.
func stageName(q string) string {
	f := strings.Fields(q)
	for k, w := range f {
		if strings.EqualFold(w, "TABLE") && k+1 < len(f) {
			n := f[k+1]
			if strings.EqualFold(n, "IF") && k+4 < len(f) {
				n = f[k+4]
			}
			return n
		}
	}
	return "\x00" // not a CREATE: matches nothing
}

// firstFailure is the index of the first statement that failed.
func firstFailure(s *fakeServer) int {
	for i, f := range s.failed {
		if f {
			return i
		}
	}
	return len(s.log) - 1
}

func countContaining(qs []string, s string) int {
	n := 0
	for _, q := range qs {
		if strings.Contains(q, s) {
			n++
		}
	}
	return n
}

func firstLines(qs []string) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = fmt.Sprintf("%3d %s", i, firstLine(q))
	}
	return out
}

// TestUnitRetriesAConflictOnce: a retryable error at any statement of
// the unit's transaction rolls it back and runs it again, once, without a
// second running row, and the unit succeeds with a note.
func TestUnitRetriesAConflictOnce(t *testing.T) {
	for _, c := range fakeCases {
		t.Run(c.engine+"/"+c.shape, func(t *testing.T) {
			clean, purposes := traced(t, c.engine, c.shape)
			inTx, tried := false, 0
			for i, p := range purposes {
				switch p {
				case plan.Begin:
					inTx = true
					continue
				case plan.Commit:
					inTx = false
				}
				if !inTx {
					continue
				}
				tried++
				srv := failingAt(clean, i, errFakeConflict)
				r, u := fakeRun(t, c.engine, c.shape, srv, nil)
				ur := r.runUnit(context.Background(), u)
				var bad string
				switch {
				case ur.Status != "succeeded" || !strings.Contains(ur.Note, "retried"):
					bad = fmt.Sprintf("status %q note %q error %q: want succeeded after a retry", ur.Status, ur.Note, ur.Error)
				case srv.okAudit("'running'") != 1:
					bad = "the retry wrote a second running row"
				case srv.log[firstFailure(srv)+1] != r.d.Rollback():
					bad = "no rollback right after the conflict"
				}
				for name, n := range srv.held {
					if n != 0 {
						bad = fmt.Sprintf("lock %s still taken %d time(s)", name, n)
					}
				}
				if bad != "" {
					t.Errorf("conflict at statement %d (%s): %s\nsent:\n%s", i, p, bad, strings.Join(firstLines(srv.log), "\n"))
				}
			}
			if tried == 0 && slices.Contains(purposes, plan.Begin) {
				t.Fatalf("no statement inside a transaction:\n%s", strings.Join(firstLines(clean), "\n"))
			}
		})
	}
}
