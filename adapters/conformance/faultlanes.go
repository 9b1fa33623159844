package conformance

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/plan"
)

// laneSeed is lane l's seed: lane 0 of one lane keeps the suite's seed
// and its draws, so that a seed repeats a serial run exactly.
func laneSeed(seed int64, l int) int64 { return seed + int64(l)*7919 }

// lanesOf is the number of lanes the random trials run on: Options.Lanes,
// IDEMC_FAULT_LANES overriding it, at least one.
func lanesOf(t *testing.T, o Options) int {
	n := o.Lanes
	if v := os.Getenv("IDEMC_FAULT_LANES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n <= 0 {
			t.Fatalf("IDEMC_FAULT_LANES=%q: want a positive number", v)
		}
	}
	return max(n, 1)
}

// randomTrials runs the suite's random trials, numbered from first+1. On
// one lane they run in turn on the suite's generators. On several, lane l
// runs trials l, l+L, l+2L… in turn, the lanes at once: every trial has
// schemas of its own, and an engine whose statements wait on commits
// (live Spark: a trial is minutes, mostly latency) gets through L times
// as many in the same time. Each lane draws from generators of its own
// (laneSeed), so a seed and a lane count repeat the same trials.
func (s *faultSuite) randomTrials(first int) {
	lanes := s.o.Lanes
	if lanes == 1 {
		s.runLane(s.t, 0, 1, first)
		return
	}
	subs := make([]*faultSuite, lanes)
	s.t.Run("lanes", func(t *testing.T) {
		for l := range subs {
			ln := s.lane(l)
			subs[l] = ln
			t.Run(fmt.Sprintf("lane%d", l+1), func(t *testing.T) {
				t.Parallel()
				ln.t = t
				ln.runLane(t, l, lanes, first)
			})
		}
	})
	for _, ln := range subs {
		s.merge(ln)
	}
}

// runLane runs trials l, l+lanes, l+2·lanes… in turn as subtests of t.
func (s *faultSuite) runLane(t *testing.T, l, lanes, first int) {
	for i := l; i < s.o.Trials; i += lanes {
		kind, n := s.kinds[i%len(s.kinds)], first+i+1
		t.Run(fmt.Sprintf("%02d_%s", i+1, kind), func(t *testing.T) { s.trial(t, n, s.randomSpec(kind)) })
	}
}

// lane is a copy of the suite for lane l: the reference, units and
// timings shared (read only), generators and tallies of its own.
func (s *faultSuite) lane(l int) *faultSuite {
	ln := *s
	ln.rng = rand.New(rand.NewSource(laneSeed(s.o.Seed, l)))
	ln.timing = rand.New(rand.NewSource(laneSeed(s.o.Seed, l) + 1))
	ln.failNext = s.failNext + l
	ln.outcomes, ln.fired, ln.missed = map[string]map[string]int{}, map[plan.Purpose]int{}, map[plan.Purpose][]string{}
	ln.midStmt, ln.recovered = 0, 0
	return &ln
}

// merge adds a lane's tallies to the suite's.
func (s *faultSuite) merge(ln *faultSuite) {
	for k, byOutcome := range ln.outcomes {
		for o, c := range byOutcome {
			if s.outcomes[k] == nil {
				s.outcomes[k] = map[string]int{}
			}
			s.outcomes[k][o] += c
		}
	}
	for p, c := range ln.fired {
		s.fired[p] += c
	}
	for p, us := range ln.missed {
		s.missed[p] = append(s.missed[p], us...)
	}
	s.midStmt += ln.midStmt
	s.recovered += ln.recovered
}

// phases times the parts of a trial, for its log line: where a slow
// engine's trial goes (setup, fault, check, rerun, compare).
type phases struct {
	start time.Time
	parts []string
}

func (p *phases) mark(name string) {
	now := time.Now()
	p.parts = append(p.parts, fmt.Sprintf("%s %.1fs", name, now.Sub(p.start).Seconds()))
	p.start = now
}

func (p phases) String() string { return strings.Join(p.parts, ", ") }
