package runner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	mysqldialect "github.com/idemc/idemc/adapters/mysql/dialect"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// errConflict stands for InnoDB's deadlock (1213): the engine below says
// it is retryable.
var errConflict = errors.New("Error 1213: Deadlock found when trying to get lock")

// lockServer is the scripted server behind lockSession: GET_LOCK counts
// re-entries per name as MySQL and MariaDB do (a lock is free only when its
// holder released it as many times as it took it).
type lockServer struct {
	mu       sync.Mutex
	held     map[string]int
	answer   string // what GET_LOCK returns: "1", "0" or "NULL"
	failOn   string // a statement prefix that fails …
	failures int    // … this many times with errConflict
	ran      []string
}

type lockEngine struct {
	adapters.Engine // nil: only Session and Retryable are used
	srv             *lockServer
}

func (e *lockEngine) Session(context.Context) (adapters.Session, error) {
	return &lockSession{srv: e.srv}, nil
}

func (e *lockEngine) Retryable(err error) bool { return errors.Is(err, errConflict) }

type lockSession struct{ srv *lockServer }

func lockArg(q string) string {
	_, rest, _ := strings.Cut(q, "(")
	name, _, _ := strings.Cut(rest, ",")
	name, _, _ = strings.Cut(name, ")")
	return strings.TrimSpace(name)
}

// Exec is the engine's side of a lock step, as MySQL's: GET_LOCK
// answering anything but 1 did not take the lock.
func (s *lockSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	res, err := execStep(ctx, s, st)
	if err == nil && st.Lock != nil && s.srv.answer != "1" {
		return res, fmt.Errorf("GET_LOCK answered %s: %w", s.srv.answer, adapters.ErrLocked)
	}
	return res, err
}

func (s *lockSession) run(_ context.Context, q string) (int64, error) {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.ran = append(s.srv.ran, q)
	if strings.HasPrefix(q, "SELECT RELEASE_LOCK(") && s.srv.held[lockArg(q)] > 0 {
		s.srv.held[lockArg(q)]--
	}
	if s.srv.failOn != "" && strings.HasPrefix(q, s.srv.failOn) && s.srv.failures > 0 {
		s.srv.failures--
		return 0, errConflict
	}
	return 1, nil
}

func (s *lockSession) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	s.srv.mu.Lock()
	defer s.srv.mu.Unlock()
	s.srv.ran = append(s.srv.ran, q)
	switch {
	case strings.HasPrefix(q, "SELECT GET_LOCK("):
		if s.srv.answer == "1" {
			s.srv.held[lockArg(q)]++
		}
		return []string{"l"}, [][]string{{s.srv.answer}}, nil
	}
	return []string{"x"}, nil, nil // checks: no failing row; counts: 0
}

func (s *lockSession) Columns(context.Context, string) ([]plan.Column, error) {
	return []plan.Column{{Name: "d", Type: "DATE"}, {Name: "n", Type: "BIGINT"}}, nil
}

func (s *lockSession) Relation(context.Context, plan.Relation) ([]plan.Column, bool, error) {
	return nil, false, nil
}

func (s *lockSession) Close() error { return nil }

// lockRun is a run of one MySQL unit on the scripted server.
func lockRun(t *testing.T, srv *lockServer) (*run, *plan.Unit) {
	t.Helper()
	ad, ok := adapters.Lookup("mysql")
	if !ok {
		t.Fatal("mysql is not registered")
	}
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "daily", Materialized: plan.Incremental, Strategy: "delete_insert",
		Target: plan.Relation{Schema: "s", Name: "daily"}, Select: "SELECT d, n FROM src", PartitionBy: "d",
		Window: &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-01"},
		State:  plan.StateIn("s"), Checks: []*plan.Check{{Name: "not_null(n)", Kind: "not_null", Severity: "error", Columns: []string{"n"}}}}
	w.Audit = &plan.AuditRow{}
	u := &plan.Unit{ID: "daily/2026-07-01", Model: "daily", Partition: "2026-07-01", Write: w}
	r := &run{p: &project.Project{Root: t.TempDir()}, eng: &lockEngine{srv: srv}, ad: ad, d: mysqldialect.NewDialect(),
		res: &Result{RunID: "20260701T000000.000Z-0000abcd"}, pl: &plan.Plan{Target: "mysql", Nodes: map[string]*plan.Node{}},
		state: w.State, db: &dbState{attempts: map[[2]string]int64{}}, ddl: map[plan.Relation]*sync.Mutex{}}
	return r, u
}

// TestUnitReleasesSessionLocks: whatever way a unit ends, every GET_LOCK
// it took is released as many times as it was taken (a pooled connection
// kept holding the table's lock after a retried deadlock, and the table's
// other partitions then waited 600 s), and a lock step whose error wraps
// adapters.ErrLocked (the fake, as MySQL's session, returns it for a
// GET_LOCK answering NULL or 0; the runner reads no lock rows) fails the
// unit as locked by another run, writing nothing.
func TestUnitReleasesSessionLocks(t *testing.T) {
	cases := []struct {
		name       string
		answer     string
		failOn     string
		failures   int
		wantStatus UnitStatus
		wantErr    string
		wantRetry  bool
	}{
		{name: "succeeds", answer: "1", wantStatus: "succeeded"},
		{name: "retried once after a deadlock", answer: "1", failOn: "INSERT INTO `s`.`daily`", failures: 1, wantStatus: "succeeded", wantRetry: true},
		{name: "retried until it gives up", answer: "1", failOn: "INSERT INTO `s`.`daily`", failures: 10, wantStatus: "failed", wantErr: "Deadlock", wantRetry: true},
		{name: "a step fails", answer: "1", wantStatus: "failed", wantErr: "doesn't exist"},
		{name: "the lock wait times out", answer: "0", wantStatus: "failed", wantErr: "locked by another run"},
		{name: "GET_LOCK returns NULL", answer: "NULL", wantStatus: "failed", wantErr: "locked by another run"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := &lockServer{held: map[string]int{}, answer: c.answer, failOn: c.failOn, failures: c.failures}
			r, u := lockRun(t, srv)
			if c.name == "a step fails" { // not retryable: a plain failure of the delete
				r.eng = &failingEngine{lockEngine{srv: srv}}
			}
			ur := r.runUnit(context.Background(), u)
			if ur.Status != c.wantStatus || !strings.Contains(ur.Error, c.wantErr) {
				t.Fatalf("status %q error %q, want %q with %q", ur.Status, ur.Error, c.wantStatus, c.wantErr)
			}
			if got := strings.Contains(ur.Note, "retried"); got != c.wantRetry {
				t.Errorf("note %q: retried=%v, want %v", ur.Note, got, c.wantRetry)
			}
			for name, n := range srv.held {
				if n != 0 {
					t.Errorf("lock %s still taken %d time(s) after the unit ended; statements:\n%s", name, n, strings.Join(srv.ran, "\n"))
				}
			}
			if c.answer != "1" {
				for _, q := range srv.ran {
					if strings.HasPrefix(q, "DELETE") || strings.HasPrefix(q, "INSERT INTO `s`.`daily`") || strings.HasPrefix(q, "SELECT RELEASE_LOCK") {
						t.Errorf("ran %q without the lock", firstLine(q))
					}
				}
			}
		})
	}
}

// failingEngine's sessions fail the partition delete, not retryably.
type failingEngine struct{ lockEngine }

func (e *failingEngine) Session(context.Context) (adapters.Session, error) {
	return &failingSession{lockSession{srv: e.srv}}, nil
}

type failingSession struct{ lockSession }

func (s *failingSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	return execStep(ctx, s, st)
}

func (s *failingSession) run(ctx context.Context, q string) (int64, error) {
	if strings.HasPrefix(q, "DELETE") {
		return 0, errors.New("Error 1146: Table 's.daily' doesn't exist")
	}
	return s.lockSession.run(ctx, q)
}
