package conformance

// The fault suite's trials: which fault where (the sweep and the random
// draws), and one trial from its start to the checks of its end state.

import (
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// trialSpec is one trial: a kind and, for rules, the unit and step. A nil
// rebuild is drawn at random.
type trialSpec struct {
	kind    string
	unit    faultUnit
	purpose plan.Purpose
	rebuild *bool
}

// randomSpec draws a trial of the kind.
func (s *faultSuite) randomSpec(kind string) trialSpec {
	sp := trialSpec{kind: kind}
	switch kind {
	case kindCrashRule:
		// A step purpose first, then a unit that has it: the rare steps
		// (publish, state, cleanup) get their share.
		ps := s.purposes()
		sp.purpose = ps[s.rng.Intn(len(ps))]
		cands := s.unitsWith(sp.purpose)
		sp.unit = cands[s.rng.Intn(len(cands))]
	case kindFailStep:
		sp.unit, sp.purpose = s.nextFail()
	}
	return sp
}

func (s *faultSuite) unitsWith(p plan.Purpose) []faultUnit {
	var out []faultUnit
	for _, u := range s.units {
		if u.has(p) {
			out = append(out, u)
		}
	}
	return out
}

// sweep lists a rule at every step: in the short version each purpose once,
// on the unit with the longest recipe among those that have it; in the soak
// version each purpose of one unit of every model.
func (s *faultSuite) sweep(kind string) []trialSpec {
	var out []trialSpec
	if s.soak {
		seen := map[string]bool{}
		for _, u := range s.units {
			model, part, _ := strings.Cut(u.id, "/")
			if seen[model] || part != "" && part != s.midDay() {
				continue
			}
			seen[model] = true
			for _, p := range u.purposes {
				out = append(out, trialSpec{kind: kind, unit: u, purpose: p})
			}
		}
		return out
	}
	for _, p := range s.purposes() {
		var best faultUnit
		for _, u := range s.unitsWith(p) {
			if len(u.purposes) > len(best.purposes) {
				best = u
			}
		}
		out = append(out, trialSpec{kind: kind, unit: best, purpose: p})
	}
	return out
}

// trial runs one fault and the checks after it.
func (s *faultSuite) trial(t *testing.T, n int, sp trialSpec) {
	kind, ru, rp := sp.kind, sp.unit, sp.purpose
	// A rebuild forces every partition but not the other units (a
	// state-aware run skips those that are up to date), so a rule on an
	// unpartitioned unit runs on a fresh backfill.
	partitioned := ru.id == "" || strings.Contains(ru.id, "/")
	var rebuild bool
	if sp.rebuild != nil {
		rebuild = *sp.rebuild && partitioned
	} else {
		rebuild = s.rng.Intn(2) == 0 && partitioned
	}
	mode := "fresh"
	if rebuild {
		mode = "rebuild"
	}
	ph := phases{start: time.Now()}
	e, app := s.newFaultEnv(t)
	if rebuild {
		e.mustSucceed(e.build(s.asOf(), nil))
	}
	ph.mark("setup")
	cs := childSpec{Threads: 1 + s.rng.Intn(3)}
	var window func(*compiler.Options)
	if rebuild {
		cs.Start, cs.End = faultStart, s.end()
		window = func(o *compiler.Options) { o.Start, o.End = faultStart, s.end() }
	}
	var fr faultResult
	switch kind {
	case kindCrashRule:
		fr = s.crashRule(t, e, cs, ru, rp)
	case kindKillTimer:
		fr = s.killTimer(t, e, cs, app)
	case kindSessionKill:
		fr = s.sessionKill(t, e, cs, app)
	case kindFailStep:
		fr = s.failStep(t, e, ru, rp, window)
	}
	s.count(kind, strings.SplitN(fr.outcome, " (", 2)[0])
	t.Logf("trial %d [%s, %s, threads %d]: %s → %s", n, kind, mode, cs.Threads, fr.fault, fr.outcome)
	ph.mark("fault")

	// Right after the fault: all or nothing, and no succeeded row without
	// its data.
	after := s.snap(t, e)
	s.checkAfterFault(t, after, rebuild, fr.failUnit, fr.postCommit)
	ph.mark("check")

	ran := s.checkRerun(t, e, fr.fault, &ph)
	if !t.Failed() {
		s.recovered++
		t.Logf("trial %d: recovered: the rerun ran %d units and left every table identical to a clean run (%s)", n, ran, ph)
	}
}

// faultResult is what a trial's fault did: the fault as the log names it,
// its outcome, and for a failed step the unit that failed and whether the
// step comes after the unit's commit.
type faultResult struct {
	fault, outcome string
	failUnit       string
	postCommit     bool
}

// crashRule runs a child that SIGKILLs itself right after step rp of ru.
func (s *faultSuite) crashRule(t *testing.T, e *env, cs childSpec, ru faultUnit, rp plan.Purpose) faultResult {
	fr := faultResult{fault: fmt.Sprintf("crash:%s:%s", ru.id, rp)}
	cmd, out := s.startChild(t, e, cs, fr.fault)
	code := exitCode(cmd.Wait())
	fr.outcome = describeExit(code)
	if code != -int(syscall.SIGKILL) {
		fr.outcome = "not reached (" + fr.outcome + ")"
		if code != childOK {
			t.Errorf("the child exited %d without its fault firing:\n%s", code, out)
		}
	}
	return fr
}

// killTimer SIGKILLs a child from outside after a random delay, noting the
// statement it was in, if any.
func (s *faultSuite) killTimer(t *testing.T, e *env, cs childSpec, app string) faultResult {
	delay := time.Duration(s.timing.Int63n(int64(s.childDur)))
	fr := faultResult{fault: fmt.Sprintf("SIGKILL after %v", delay.Round(time.Millisecond))}
	t0 := time.Now()
	cmd, out := s.startChild(t, e, cs, "")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		fr.outcome = "finished before the kill (" + describeExit(exitCode(err)) + ")"
		s.observe(time.Since(t0), exitCode(err))
	case <-time.After(delay):
		active := s.activeStatement(cmd.Process.Pid, app, e.schema)
		_ = cmd.Process.Kill()
		code := exitCode(<-done)
		fr.outcome = describeExit(code)
		if code != -int(syscall.SIGKILL) {
			fr.outcome = "finished before the kill (" + fr.outcome + ")"
			if code != childOK {
				t.Errorf("the child exited %d:\n%s", code, out)
			}
		} else if active != "" {
			s.midStmt++
			fr.outcome = "killed mid-statement"
			fr.fault += " during: " + active
		}
	}
	return fr
}

// sessionKill has the server end the child's sessions (all, or the busy
// one) after a random delay, and waits for the child to finish.
func (s *faultSuite) sessionKill(t *testing.T, e *env, cs childSpec, app string) faultResult {
	delay := time.Duration(s.timing.Int63n(int64(s.childDur)))
	busy := s.rng.Intn(2) == 0
	scope := "all sessions"
	if busy {
		scope = "the busy session"
	}
	fr := faultResult{fault: fmt.Sprintf("server ends %s of the child after %v", scope, delay.Round(time.Millisecond))}
	t0 := time.Now()
	cmd, out := s.startChild(t, e, cs, "")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	killed, code := s.endSessionsAfter(t, cmd, done, out, delay, app, e.schema, busy)
	if len(killed) == 0 {
		fr.outcome = "no session found (" + describeExit(code) + ")"
		s.observe(time.Since(t0), code)
	} else {
		fr.fault += fmt.Sprintf(": %d ended (%s)", len(killed), strings.Join(killed, "; "))
		fr.outcome = "sessions ended, child " + describeExit(code)
	}
	if code != childOK && code != childUnitsFailed && code != childBuildError {
		t.Errorf("the child exited %d after its sessions were ended:\n%s", code, out)
	}
	if code == childOK && len(killed) > 0 {
		// An idle pooled connection was ended and replaced: nothing lost.
		t.Logf("the child completed although %d of its sessions were ended (idle ones)", len(killed))
	}
	return fr
}

// endSessionsAfter ends the child's sessions once delay passed, polling
// until one shows up, and returns those ended and the child's exit code.
func (s *faultSuite) endSessionsAfter(t *testing.T, cmd *exec.Cmd, done chan error, out fmt.Stringer, delay time.Duration, app, schema string, busy bool) ([]string, int) {
	timer := time.After(delay)
	for {
		select {
		case err := <-done:
			return nil, exitCode(err)
		case <-timer:
			k, err := s.killSessions(cmd.Process.Pid, app, schema, busy)
			if err != nil {
				t.Errorf("ending the child's sessions: %v", err)
			}
			if len(k) == 0 {
				timer = time.After(5 * time.Millisecond) // poll until a session shows up
				continue
			}
			select {
			case err := <-done:
				return k, exitCode(err)
			case <-time.After(2 * time.Minute):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("the child did not finish within 2 minutes after its sessions were ended:\n%s", out)
			}
			return k, 0
		}
	}
}

// failStep runs a build in which step p of unit u fails, and checks that
// the failed attempt has its failed audit row.
func (s *faultSuite) failStep(t *testing.T, e *env, u faultUnit, p plan.Purpose, window func(*compiler.Options)) faultResult {
	fr := faultResult{fault: fmt.Sprintf("fail:%s:%s", u.id, p), postCommit: u.post[p]}
	e.fault = fr.fault
	res, err := e.buildErr(s.asOf(), window)
	e.fault = ""
	if err != nil {
		t.Fatalf("the build with %s: %v", fr.fault, err)
	}
	var ur *runner.UnitResult
	for _, x := range res.Units {
		if x.ID == u.id {
			ur = x
		}
	}
	switch {
	case ur == nil:
		fr.outcome = "not planned"
	case ur.Status == "failed" && strings.Contains(ur.Error, "injected failure"):
		fr.outcome = "failed at " + string(p)
		s.fired[p]++
		fr.failUnit = u.id
		// The failed attempt has its own audit row, saying failed.
		if st := s.runStatus(t, e, u.id, res.RunID); st != "failed" {
			if st == "" {
				st = "no row"
			}
			t.Errorf("the failed attempt of %s (run %s, %s) has %s in the audit table, want a failed row", u.id, res.RunID, fr.fault, st)
		}
	case ur.Status == "failed":
		fr.outcome = "failed otherwise"
		t.Errorf("%s failed without the injected failure: %s", u.id, ur.Error)
	default:
		fr.outcome = "not reached (" + string(ur.Status) + ")"
		if ur.Status == "succeeded" {
			s.missed[p] = append(s.missed[p], u.id)
		}
	}
	return fr
}

// checkRerun runs a plain rerun after the fault: it succeeds, leaves every
// table, relation, high-water mark as a clean run does, and every unit's
// latest audit row says succeeded. It returns how many units ran.
func (s *faultSuite) checkRerun(t *testing.T, e *env, fault string, ph *phases) int {
	res, err := e.buildErr(s.asOf(), nil)
	ph.mark("rerun")
	if err != nil {
		t.Fatalf("the rerun after %s: %v", fault, err)
	}
	if !res.OK() {
		for _, u := range res.Units {
			if u.Error != "" {
				t.Errorf("rerun: %s %s: %s", u.ID, u.Status, firstLineOf(u.Error))
			}
		}
		t.FailNow()
	}
	final := s.snap(t, e)
	ph.mark("compare")
	if d := final.diff(s.ref); d != "" {
		t.Errorf("after the rerun the tables differ from a clean run: %s", d)
	}
	if got, want := strings.Join(final.relations, " "), strings.Join(s.ref.relations, " "); got != want {
		t.Errorf("after the rerun the schemas hold other relations than a clean run's (leftovers of the fault?):\n got: %s\nwant: %s", got, want)
	}
	s.checkAudit(t, final, true)
	if final.marks != s.ref.marks {
		t.Errorf("after the rerun the high-water marks are %q, a clean run's %q", final.marks, s.ref.marks)
	}
	s.checkLatestSucceeded(t, final)
	return len(res.Units)
}

// checkLatestSucceeded: every unit's latest audit row says succeeded.
func (s *faultSuite) checkLatestSucceeded(t *testing.T, final *snapshot) {
	latest := map[string]auditRow{}
	for _, a := range final.audit {
		id := a.job
		if a.part != "" {
			id += "/" + a.part
		}
		if prev, ok := latest[id]; !ok || atoi(a.attempt) > atoi(prev.attempt) {
			latest[id] = a
		}
	}
	for _, u := range append(s.unitIDs(), "events", "users") {
		if a, ok := latest[u]; !ok {
			t.Errorf("after the rerun %s has no audit row", u)
		} else if a.status != "succeeded" {
			t.Errorf("after the rerun the latest audit row of %s says %s (attempt %s)", u, a.status, a.attempt)
		}
	}
}

func (s *faultSuite) unitIDs() []string {
	out := make([]string, len(s.units))
	for i, u := range s.units {
		out[i] = u.id
	}
	return out
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// observe shortens the range of the random delays when a child finished
// before its fault.
func (s *faultSuite) observe(d time.Duration, code int) {
	if code == childOK && d < s.childDur {
		s.childDur = d
	}
}

// purposes are the step purposes some unit of the project has.
func (s *faultSuite) purposes() []plan.Purpose {
	var out []plan.Purpose
	for _, p := range allPurposes {
		for _, u := range s.units {
			if u.has(p) {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// nextFail is the next purpose of the fail_step cycle and a random unit
// that has such a step.
func (s *faultSuite) nextFail() (faultUnit, plan.Purpose) {
	for range allPurposes {
		p := allPurposes[s.failNext%len(allPurposes)]
		s.failNext++
		var cands []faultUnit
		for _, u := range s.units {
			if u.has(p) {
				cands = append(cands, u)
			}
		}
		if len(cands) > 0 {
			return cands[s.rng.Intn(len(cands))], p
		}
	}
	s.t.Fatal("no unit has any step")
	return faultUnit{}, ""
}
