package conformance

// Concurrent-runner trials (issue 17, items 2, 3 and 8): two to four idemc
// processes build the fault project (faults.go) in one schema at once, with
// overlapping selections — a plain build, forced partition ranges, one
// model and its upstream — and, in most trials, one runner whose table
// model `summary` repeats every row, so that its rebuild fails
// unique(user_id) (and its rows, if published, show as duplicates). A
// trial starts from a fresh schema (every runner creates it and the state
// tables) or from a clean build. Pauses injected after the lock and check
// steps of summary and daily widen the races.
//
// After the runners: every runner exited completed, or units failed for the
// runner with the failing check and only its summary unit; on DuckDB, a
// runner that found the file held by another got a clear "locked" error. A
// failed check's data is never published, every succeeded audit row has
// its data, and no audit row is left running. When a plain build completed,
// every relation equals the reference (a clean run); otherwise a plain
// rerun must make it so.
//
// IDEMC_CONC_TRIALS overrides the number of trials (30 per engine;
// IDEMC_SOAK=1: 120); IDEMC_FAULT_SEED the seed.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
)

const concChildEnv = "IDEMC_CONC_CHILD"

// concChild is one runner of a trial.
type concChild struct {
	Dir, AsOf, Start, End string
	Select                []string
	Threads               int
	Fault                 string // IDEMC_FAULT of the child
	failing               bool   // its summary fails min_rows
	plain                 bool   // a plain build of everything
}

func (c concChild) String() string {
	var parts []string
	if c.plain {
		parts = append(parts, "build")
	}
	if len(c.Select) > 0 {
		parts = append(parts, "--select "+strings.Join(c.Select, " "))
	}
	if c.Start != "" {
		parts = append(parts, "--start "+c.Start+" --end "+c.End)
	}
	if c.failing {
		parts = append(parts, "(summary fails unique)")
	}
	return strings.Join(parts, " ")
}

// runConcChild runs one build described by spec and exits with a child
// exit code (faults.go), printing a build error for the parent to read.
func runConcChild(spec string) {
	var c concChild
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		fmt.Fprintln(os.Stderr, "concurrent child:", err)
		os.Exit(childSetupFailure)
	}
	buildChild("concurrent child", c.Dir, compiler.Options{Start: c.Start, End: c.End, Select: c.Select}, c.AsOf, c.Threads)
}

// Concurrent runs the concurrent-runner trials on a target. The engine's
// test must be named TestConcurrent: its runners are child processes
// `<test binary> -test.run=^TestConcurrent$`.
func Concurrent(t *testing.T, tgt Target, o Options) {
	if spec := os.Getenv(concChildEnv); spec != "" {
		runConcChild(spec)
	}
	o.Trials = concTrials(t, tgt)
	o = o.resolve(t)
	t.Setenv("IDEMC_FAULT", "")
	t.Setenv("IDEMC_TRACE", "")
	s := &faultSuite{t: t, tgt: tgt, o: o, rng: rand.New(rand.NewSource(o.Seed)), started: time.Now(),
		outcomes: map[string]map[string]int{}}
	t.Logf("%s: %d concurrent trials, seed %d (repeat with IDEMC_FAULT_SEED=%d IDEMC_CONC_TRIALS=%d)", tgt.Engine, o.Trials, o.Seed, o.Seed, o.Trials)
	if !s.reference() {
		return
	}
	cs := &concStats{outcomes: map[string]int{}}
	t0 := time.Now()
	for i := 0; i < o.Trials; i++ {
		t.Run(fmt.Sprintf("%02d", i+1), func(t *testing.T) { s.concTrial(t, cs, i) })
	}
	var outs []string
	for k, n := range cs.outcomes {
		outs = append(outs, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(outs)
	t.Logf("SUMMARY %s concurrent: %d trials (%d fresh schema, %d rebuild) in %.1fs, seed %d: %d runners (%s); failed checks never published %d/%d; reruns needed %d; trials passed %d/%d",
		tgt.Engine, o.Trials, cs.fresh, o.Trials-cs.fresh, time.Since(t0).Seconds(), o.Seed, cs.runners, strings.Join(outs, ", "),
		cs.failingOK, cs.failing, cs.reruns, cs.passed, o.Trials)
}

func concTrials(t *testing.T, tgt Target) int {
	if v := os.Getenv("IDEMC_CONC_TRIALS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			t.Fatalf("IDEMC_CONC_TRIALS=%q: want a positive number", v)
		}
		return n
	}
	n := 30 // DuckDB too: most of its runners are refused, in 0.7 s a trial
	if os.Getenv("IDEMC_SOAK") == "1" {
		n *= 4
	}
	return n
}

type concStats struct {
	fresh, runners, failing, failingOK, reruns, passed int
	outcomes                                           map[string]int
}

// concRunners draws a trial's runners; the first is always a plain build.
func (s *faultSuite) concRunners(e *env) []concChild {
	n := 2 + s.rng.Intn(3)
	kids := []concChild{{plain: true}}
	for len(kids) < n {
		var c concChild
		switch s.rng.Intn(4) {
		case 0:
			c.plain = true
		case 1:
			a := 1 + s.rng.Intn(s.o.Days)
			b := a + 1 + s.rng.Intn(s.o.Days-a+1)
			c.Start, c.End = day(a), day(b)
		case 2:
			c.Select = []string{"+summary"}
		default:
			c.Select = []string{"daily", "summary", "v_daily"}
		}
		kids = append(kids, c)
	}
	if s.rng.Intn(4) != 0 { // most trials have a runner whose check fails
		k := &kids[1+s.rng.Intn(len(kids)-1)]
		// A plain build or a selection with summary: it always runs
		// summary (its code differs), so it always fails there.
		k.failing = true
		if len(k.Select) == 0 {
			k.Start, k.End, k.plain = "", "", true
		}
	}
	for i := range kids {
		kids[i].Dir, kids[i].AsOf, kids[i].Threads = e.dir, s.asOf(), 1+s.rng.Intn(3)
		var rules []string
		for _, r := range []string{"summary:lock", "summary:check", "daily/" + s.midDay() + ":lock", "daily/" + s.midDay() + ":check"} {
			if s.rng.Intn(3) == 0 {
				rules = append(rules, fmt.Sprintf("sleep:%s:%dms", r, 50+s.rng.Intn(300)))
			}
		}
		kids[i].Fault = strings.Join(rules, ";")
	}
	return kids
}

// failingCopy is a copy of the project whose summary has every row twice
// (its unique check fails), writing to the same schema.
func failingCopy(t *testing.T, e *env) string {
	dir := t.TempDir()
	for _, name := range []string{"project.toml", "seeds/events.csv", "seeds/users.csv", "models/daily.sql", "models/daily_big.sql",
		"models/user_totals.sql", "models/users_dim.sql", "models/summary.sql", "models/v_daily.sql"} {
		b, err := os.ReadFile(filepath.Join(e.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "models/summary.sql" {
			// Every row twice: unique(user_id) fails, and rows that got
			// published would show as duplicate keys.
			head, body, ok := strings.Cut(string(b), "*/\n")
			if !ok {
				t.Fatal("summary.sql has no header")
			}
			b = []byte(head + "*/\n" + strings.TrimRight(body, "\n") + "\nUNION ALL\n" + body)
		}
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// concTrial runs one trial's runners at once and checks what they left.
func (s *faultSuite) concTrial(t *testing.T, cs *concStats, i int) {
	e, _ := s.newFaultEnv(t)
	fresh := i%2 == 0
	if fresh {
		cs.fresh++
	} else {
		e.mustSucceed(e.build(s.asOf(), nil))
	}
	procs := startConc(t, e, s.concRunners(e))
	cs.runners += len(procs)
	plainOK, failed := false, false
	for k, p := range procs {
		code := waitChild(p.cmd, 3*time.Minute)
		out := p.out.String()
		outcome := s.concOutcome(p.c, code, out)
		cs.outcomes[outcome]++
		t.Logf("runner %d (%s): %s", k+1, p.c, outcome)
		switch {
		case strings.HasPrefix(outcome, "wrong"):
			t.Errorf("runner %d (%s) %s:\n%s", k+1, p.c, outcome, out)
		case outcome == "completed" && p.c.plain && !p.c.failing:
			plainOK = true
		case outcome == "summary failed its check":
			failed = true
		}
	}
	if failed {
		cs.failing++
	}
	after := s.snap(t, e)
	// Nothing half written, no failed check's rows published, every
	// succeeded audit row backed by its data, no row left running.
	switch {
	case plainOK || !fresh:
		if d := after.diff(s.ref); d != "" {
			t.Errorf("after the concurrent runners the data differs from a clean run: %s", d)
		}
	default:
		// A fresh schema and no plain build completed (DuckDB refused it):
		// a range runner's downstream models read only the partitions
		// built so far, as they would alone. Here the partitions, seeds,
		// duplicates and running rows are checked; the rerun below
		// compares everything.
		after = s.partitionsOnly(after)
		s.checkAfterFault(t, after, false, "", false)
	}
	s.checkAudit(t, after, true)
	if failed && after.dups["summary"] == "" && (len(after.tables["summary"]) == 0 || sameParts(after.tables["summary"], s.ref.tables["summary"])) {
		cs.failingOK++
	}
	if !plainOK {
		// No plain build completed (DuckDB refused it): a plain rerun
		// must give a clean run's relations.
		cs.reruns++
		e.mustSucceed(e.build(s.asOf(), nil))
		final := s.snap(t, e)
		if d := final.diff(s.ref); d != "" {
			t.Errorf("a plain rerun after the concurrent runners differs from a clean run: %s", d)
		}
		s.checkAudit(t, final, true)
	}
	if !t.Failed() {
		cs.passed++
	}
}

// partitionsOnly is sn with the unpartitioned models (whose contents
// depend on which partitions were built) taken from the reference, and
// without their audit rows.
func (s *faultSuite) partitionsOnly(sn *snapshot) *snapshot {
	out := *sn
	out.tables = map[string]map[string]string{}
	skip := map[string]bool{}
	for _, ft := range faultTables {
		out.tables[ft.name] = sn.tables[ft.name]
		if ft.part == "" && !ft.raw {
			out.tables[ft.name], skip[ft.model] = s.ref.tables[ft.name], true
		}
	}
	out.audit = nil
	for _, a := range sn.audit {
		if !skip[a.job] || a.status == "running" {
			out.audit = append(out.audit, a)
		}
	}
	return &out
}

// concProc is a started runner.
type concProc struct {
	c   concChild
	cmd *exec.Cmd
	out *bytes.Buffer
}

// startConc starts a trial's runners at once, the failing ones on a copy
// of the project.
func startConc(t *testing.T, e *env, kids []concChild) []concProc {
	var bad string
	var procs []concProc
	for _, c := range kids {
		if c.failing {
			if bad == "" {
				bad = failingCopy(t, e)
			}
			c.Dir = bad
		}
		spec, _ := json.Marshal(c)
		cmd := exec.Command(os.Args[0], "-test.run=^TestConcurrent$", "-test.count=1")
		cmd.Env = append(os.Environ(), concChildEnv+"="+string(spec), "IDEMC_FAULT="+c.Fault, "IDEMC_TRACE=")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		procs = append(procs, concProc{c, cmd, &out})
	}
	return procs
}

// waitChild waits for a runner, killing it after limit (a runner stuck on
// another's lock: the lock leak of issue 17, item 3).
func waitChild(cmd *exec.Cmd, limit time.Duration) int {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return exitCode(err)
	case <-time.After(limit):
		_ = cmd.Process.Kill()
		<-done
		return -1
	}
}

// concOutcome classifies a runner's exit; "wrong …" outcomes fail the
// trial.
func (s *faultSuite) concOutcome(c concChild, code int, out string) string {
	switch code {
	case childOK:
		if c.failing {
			return "wrong: completed although its summary fails unique(user_id)"
		}
		return "completed"
	case childUnitsFailed:
		var failedUnits []string
		for _, line := range strings.Split(out, "\n") {
			if rest, ok := strings.CutPrefix(line, "concurrent child: unit "); ok {
				failedUnits = append(failedUnits, rest)
			}
		}
		if c.failing && len(failedUnits) == 1 && strings.HasPrefix(failedUnits[0], "summary failed: check unique") {
			return "summary failed its check"
		}
		return "wrong: units failed (" + strings.Join(failedUnits, "; ") + ")"
	case childBuildError:
		if !s.tgt.Concurrent && strings.Contains(out, "locked by another run") {
			return "refused: locked by another run"
		}
		return "wrong: build error (" + firstLineOf(strings.TrimSpace(out)) + ")"
	case -1:
		return "wrong: still running after 3 minutes (a lock never released?)"
	}
	return "wrong: " + describeExit(code)
}
