package runner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

var (
	errRace  = errors.New("duplicate key value violates unique constraint \"pg_type_typname_nsp_index\"")
	errOther = errors.New("permission denied for schema s")
)

// ddlSession fails its first statements with the scripted errors, then
// succeeds; it counts the statements it was asked to run.
type ddlSession struct {
	lockSession
	errs []error
	runs int
}

func (s *ddlSession) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	return execStep(ctx, s, st)
}

func (s *ddlSession) run(context.Context, string) (int64, error) {
	s.runs++
	if len(s.errs) > 0 {
		err := s.errs[0]
		s.errs = s.errs[1:]
		return 0, err
	}
	return 0, nil
}

// racerEngine classifies errRace as a lost DDL race.
type racerEngine struct{ adapters.Engine }

func (racerEngine) LostDDLRace(err error) bool { return errors.Is(err, errRace) }

// TestExecIdempotentRetriesOnlyRaces: only an error the engine calls a
// lost race is run again (up to 4 tries); any other fails at once, as
// does every error on an engine that classifies none.
func TestExecIdempotentRetriesOnlyRaces(t *testing.T) {
	for _, tc := range []struct {
		name     string
		eng      adapters.Engine
		errs     []error
		wantErr  error
		wantRuns int
	}{
		{"success", racerEngine{}, nil, nil, 1},
		{"race then success", racerEngine{}, []error{errRace, errRace}, nil, 3},
		{"race every time", racerEngine{}, []error{errRace, errRace, errRace, errRace, errRace}, errRace, 4},
		{"other error", racerEngine{}, []error{errOther}, errOther, 1},
		{"race then other error", racerEngine{}, []error{errRace, errOther}, errOther, 2},
		{"engine without a classifier", &lockEngine{}, []error{errRace}, errRace, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &ddlSession{errs: tc.errs}
			err := execIdempotent(context.Background(), tc.eng, s, &plan.Step{SQL: "CREATE SCHEMA IF NOT EXISTS s"})
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("error %v, want %v", err, tc.wantErr)
			}
			if s.runs != tc.wantRuns {
				t.Errorf("ran the statement %d times, want %d", s.runs, tc.wantRuns)
			}
		})
	}
}

// backoffRacer is a racer that declares a RetryBackoff, as Spark does.
type backoffRacer struct{ racerEngine }

func (backoffRacer) RetryBackoff() (budget, first time.Duration) {
	return time.Minute, 100 * time.Millisecond
}

// TestExecIdempotentWaitsFromTheEngineBackoff: on an engine with a
// RetryBackoff the waits between tries grow from its first wait (100,
// 200, 300 ms here), not from 30 ms (30, 60, 90).
func TestExecIdempotentWaitsFromTheEngineBackoff(t *testing.T) {
	s := &ddlSession{errs: []error{errRace, errRace, errRace, errRace}}
	start := time.Now()
	err := execIdempotent(context.Background(), backoffRacer{}, s, &plan.Step{SQL: "CREATE TABLE IF NOT EXISTS t (n INT)"})
	if !errors.Is(err, errRace) || s.runs != 4 {
		t.Fatalf("error %v after %d runs, want the race after 4", err, s.runs)
	}
	if d := time.Since(start); d < 600*time.Millisecond {
		t.Errorf("waited %v in all, want at least 100+200+300 ms", d)
	}
}
