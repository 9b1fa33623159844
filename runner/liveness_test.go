package runner

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// beatEngine is an engine without RunLocks whose sessions log statements
// and answer the running-runs and heartbeat queries from the test's rows.
type beatEngine struct {
	adapters.Engine
	mu      sync.Mutex
	log     []string
	running [][]string // RunningQuery's rows
	beats   [][]string // HeartbeatQuery's rows (host, pid)
	// beatsFor, when set, answers HeartbeatQuery per run id instead.
	beatsFor map[string][][]string
}

func (e *beatEngine) Session(context.Context) (adapters.Session, error) {
	return &beatSession{e: e}, nil
}

func (e *beatEngine) sent(sub string) int {
	e.mu.Lock()
	defer e.mu.Unlock()
	n := 0
	for _, q := range e.log {
		if strings.Contains(q, sub) {
			n++
		}
	}
	return n
}

type beatSession struct {
	adapters.Session
	e *beatEngine
}

func (s *beatSession) Exec(_ context.Context, st *plan.Step) (plan.Result, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.e.log = append(s.e.log, st.SQL)
	return plan.Result{Affected: -1}, nil
}

func (s *beatSession) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	s.e.mu.Lock()
	defer s.e.mu.Unlock()
	s.e.log = append(s.e.log, q)
	switch {
	case strings.Contains(q, "DISTINCT run_id"):
		return []string{"run_id"}, s.e.running, nil
	case strings.Contains(strings.ToLower(q), "idemc_heartbeats"):
		for run, rows := range s.e.beatsFor {
			if strings.Contains(q, "'"+run+"'") {
				return []string{"host", "pid"}, rows, nil
			}
		}
		return []string{"host", "pid"}, s.e.beats, nil
	}
	return nil, nil, nil
}

func (s *beatSession) Close() error { return nil }

func beatRun(t *testing.T, eng *beatEngine) *run {
	ad, ok := adapters.Lookup("spark")
	if !ok {
		t.Fatal("spark is not registered")
	}
	return &run{p: &project.Project{Root: t.TempDir()}, eng: eng, ad: ad, d: ad.Dialect, state: plan.StateIn("analytics"),
		res: &Result{RunID: "20260701T000000.000Z-0000abcd"}}
}

// TestLiveRunNotAbandoned: on an engine without a run lock (Spark,
// Snowflake, BigQuery) a second run used to mark every running row of
// another run abandoned, the live one's too; a run with recent heartbeats
// is left alone, a silent one (or one whose process on this host is gone)
// is abandoned.
func TestLiveRunNotAbandoned(t *testing.T) {
	for _, tc := range []struct {
		name    string
		beats   [][]string
		abandon bool
	}{
		{"recent beat from another host", [][]string{{"elsewhere", "1"}}, false},
		{"no recent beat", nil, true},
		{"recent beat of a dead process of this host", [][]string{{"<host>", "dead"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			eng := &beatEngine{running: [][]string{{"20260630T000000.000Z-live0000"}}}
			r := beatRun(t, eng)
			lv, ok := r.runLiveness().(*heartbeats)
			if !ok {
				t.Fatalf("spark gets no heartbeats: %T", r.runLiveness())
			}
			for _, b := range tc.beats {
				if b[0] == "<host>" {
					b[0], b[1] = lv.host, "999999999" // no such pid
				}
				eng.beats = append(eng.beats, b)
			}
			if err := r.abandonDeadRuns(context.Background(), &beatSession{e: eng}, r.state); err != nil {
				t.Fatal(err)
			}
			if eng.sent("idemc_heartbeats") != 1 { // the liveness query only
				t.Errorf("before it has work, the run beats: %s", strings.Join(eng.log, "\n"))
			}
			release, err := r.beats.HoldRun(context.Background(), r.res.RunID)
			if err != nil {
				t.Fatal(err)
			}
			release()
			// Spark's audit is append-only: an abandoned row is inserted.
			if got := eng.sent("'abandoned'") > 0; got != tc.abandon {
				t.Errorf("abandoned: %v, want %v\nsent:\n%s", got, tc.abandon, strings.Join(eng.log, "\n"))
			}
			if eng.sent("CREATE TABLE IF NOT EXISTS `analytics`.`idemc_heartbeats`") != 1 || eng.sent("INSERT INTO `analytics`.`idemc_heartbeats`") < 1 {
				t.Errorf("the run wrote no heartbeat:\n%s", strings.Join(eng.log, "\n"))
			}
			if eng.sent("DELETE FROM `analytics`.`idemc_heartbeats` WHERE run_id = '20260701T000000.000Z-0000abcd'") != 1 {
				t.Errorf("release did not delete the run's heartbeats:\n%s", strings.Join(eng.log, "\n"))
			}
		})
	}
}

// TestHeartbeatsBeatUntilReleased: the run beats every interval while it
// lives, and not after release.
func TestHeartbeatsBeatUntilReleased(t *testing.T) {
	eng := &beatEngine{}
	r := beatRun(t, eng)
	h := r.runLiveness().(*heartbeats)
	h.every = 5 * time.Millisecond
	release, err := h.HoldRun(context.Background(), r.res.RunID)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for eng.sent("INSERT INTO") < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	release()
	n := eng.sent("INSERT INTO")
	if n < 3 {
		t.Fatalf("%d beats in 5 s at a 5 ms interval", n)
	}
	time.Sleep(30 * time.Millisecond)
	if m := eng.sent("INSERT INTO"); m != n {
		t.Errorf("%d beats after release", m-n)
	}
}
