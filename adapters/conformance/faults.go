package conformance

// The fault injection suite (issue 6, item 4; DESIGN §1, §7–§9): a
// multi-partition backfill (two partitioned models of Options.Days day
// partitions each, six by default; a merge model, a watermark merge model,
// a table and a view downstream) is hit, trial after trial, by one fault:
//
//   - crash_rule:   a child process SIGKILLs itself right after a step of a
//     unit (IDEMC_FAULT=crash:<unit>:<purpose>);
//   - kill_timer:   the child is SIGKILLed from outside after a random delay,
//     so the kill can land in the middle of a statement;
//   - session_kill: the server ends the child's sessions at a random point
//     (pg_terminate_backend by application_name on PostgreSQL, KILL
//     CONNECTION of the child's connections, found by their TCP ports, on
//     MySQL/MariaDB);
//   - fail_step:    one step of one unit fails (IDEMC_FAULT=fail:<unit>:<purpose>).
//
// The suite first sweeps the steps, deterministically: a crash and a
// failure after every step purpose of the recipes (IDEMC_SOAK=1: after every
// step of one unit of every model); then it runs the random trials.
//
// A trial starts either from an empty schema (fresh: the first backfill) or
// from a complete clean build that the faulty run rebuilds (rebuild: every
// partition forced with --start/--end). Right after the fault every region
// must be in its previous state or complete (all or nothing), and every
// succeeded audit row must have its data; a failed step must have its own
// failed audit row. Then a plain rerun in process must succeed and leave
// every table equal to a reference built once by a clean run, with the same
// relations (no leftovers), the same high-water marks, no duplicate rows, no
// running audit rows and a succeeded latest audit row for every unit.
//
// IDEMC_FAULT_TRIALS and IDEMC_FAULT_SEED choose the number of random trials
// (default 12; 60 with IDEMC_SOAK=1) and the seed.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/faultinject"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// Options of the fault suite. Zero values are read from the environment:
// IDEMC_FAULT_TRIALS (else 60 with IDEMC_SOAK=1, else 12) and
// IDEMC_FAULT_SEED (else the clock; the seed is logged so that a run can be
// repeated).
type Options struct {
	Trials int
	Seed   int64
	// Short: without IDEMC_FAULT_TRIALS or IDEMC_SOAK=1, skip the sweep
	// (a crash and a failure at every step) and run ShortTrials random
	// trials: a slow engine's CI budget (live Spark: a trial is three
	// builds, minutes on a 2-core machine). `make spark` runs the rest.
	Short       bool
	ShortTrials int
	// Lanes runs the random trials that many at a time (randomTrials);
	// IDEMC_FAULT_LANES overrides it. 0 or 1: one after another.
	Lanes int
	// Days is the number of day partitions of the fault project's two
	// partitioned models (0: faultDays; IDEMC_FAULT_DAYS overrides it). A
	// slow engine's CI trials use fewer (live Spark: each unit is seconds
	// of Delta commits): every build of every trial is shorter, and the
	// kinds of fault are the same.
	Days int
}

// Trial counts of the short (CI) and the soak versions.
const (
	ciTrials   = 12
	soakTrials = 60
)

func (o Options) resolve(t *testing.T) Options {
	if o.Short && os.Getenv("IDEMC_FAULT_TRIALS") == "" && os.Getenv("IDEMC_SOAK") != "1" {
		o.Trials = o.ShortTrials
	} else {
		o.Short = false
	}
	if o.Trials <= 0 {
		if v := os.Getenv("IDEMC_FAULT_TRIALS"); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				t.Fatalf("IDEMC_FAULT_TRIALS=%q: want a positive number", v)
			}
			o.Trials = n
		} else if os.Getenv("IDEMC_SOAK") == "1" {
			o.Trials = soakTrials
		} else {
			o.Trials = ciTrials
		}
	}
	o.Lanes = lanesOf(t, o)
	if v := os.Getenv("IDEMC_FAULT_DAYS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 28 {
			t.Fatalf("IDEMC_FAULT_DAYS=%q: want a number of days from 1 to 28", v)
		}
		o.Days = n
	}
	if o.Days <= 0 {
		o.Days = faultDays
	}
	if o.Seed == 0 {
		if v := os.Getenv("IDEMC_FAULT_SEED"); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("IDEMC_FAULT_SEED=%q: want a number", v)
			}
			o.Seed = n
		} else {
			o.Seed = time.Now().UnixNano() % 1_000_000_000
		}
	}
	return o
}

// The fault kinds.
const (
	kindCrashRule   = "crash_rule"
	kindKillTimer   = "kill_timer"
	kindSessionKill = "session_kill"
	kindFailStep    = "fail_step"
)

// allPurposes are the step purposes of every recipe, in recipe order: the
// fail_step trials take them in turn.
var allPurposes = []plan.Purpose{
	plan.Prepare, plan.LatestStart, plan.AuditStart, plan.Begin, plan.Lock, plan.Stage,
	plan.Validate, plan.Delete, plan.Insert, plan.Merge, plan.CheckStep,
	plan.Publish, plan.StateStep, plan.AuditFinish, plan.LatestEnd, plan.Commit, plan.Cleanup,
}

// The fault project: by default six day partitions (2026-07-01 …
// 2026-07-06), built as of the day after the last (Options.Days).
const (
	faultStart = "2026-07-01"
	faultDays  = 6
	perDay     = 8
	bigFanout  = 12 // daily_big: perDay × days·perDay × bigFanout rows per partition
)

// day is the fault project's n-th day (1: faultStart).
func day(n int) string { return fmt.Sprintf("2026-07-%02d", n) }

// asOf is the logical time of every build of the fault project: the
// end of its last day partition.
func (s *faultSuite) asOf() string { return day(s.o.Days+1) + "T00:00:00Z" }

// end is the exclusive end of the project's partitions (--end).
func (s *faultSuite) end() string { return day(s.o.Days + 1) }

// midDay is a partition in the middle of the project, for the rules the
// concurrent trials and the soak sweep aim at one partition.
func (s *faultSuite) midDay() string { return day((s.o.Days + 1) / 2) }

func faultFiles(days int) map[string]string {
	var ev strings.Builder
	ev.WriteString("id,d,user_id,amount\n")
	users := "abcdef"
	for id := 1; id <= days*perDay; id++ {
		fmt.Fprintf(&ev, "%d,%s,%c,%d\n", id, day(1+(id-1)/perDay), users[(id*7)%6], (id*37)%50+1)
	}
	// Every user is updated on the first day, so that the watermark model
	// loads all of them however few days the project has (summary checks
	// its users against them).
	us := "id,name,updated_at\n"
	for i, n := range []string{"Ann", "Bob", "Cy", "Dee", "Eve", "Fay"} {
		us += fmt.Sprintf("%c,%s,%s %02d:00:00\n", users[i], n, faultStart, 10+i)
	}
	return map[string]string{
		"seeds/events.csv": ev.String(),
		"seeds/users.csv":  us,
		"models/daily.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
unique = ["id"]
not_null = ["id", "d"]
row_count_matches = { source = "raw.events", column = "d" }
min_rows = 1
accepted_values = { user_id = ["a", "b", "c", "d", "e", "f"] }
*/
SELECT id, d, user_id, amount FROM {{ source("raw", "events") }}
WHERE d >= {{ start }} AND d < {{ end }}
`,
		// Big enough that statements take a while, so that an external kill
		// can land inside one.
		"models/daily_big.sql": fmt.Sprintf(`/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
unique = ["k"]
*/
SELECT e.id * 1000000 + a.id * 1000 + b.id AS k, e.d, e.amount + a.amount * b.amount AS v
FROM {{ ref("daily") }} AS e
CROSS JOIN {{ source("raw", "events") }} AS a
CROSS JOIN {{ source("raw", "events") }} AS b
WHERE e.d >= {{ start }} AND e.d < {{ end }} AND b.id <= %d
`, bigFanout),
		"models/user_totals.sql": `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = "user_id"
[checks]
not_null = ["user_id"]
*/
SELECT user_id, count(*) AS n, sum(amount) AS total FROM {{ ref("daily") }} GROUP BY user_id
`,
		"models/users_dim.sql": `/* idemc
materialized = "incremental"
strategy = "merge"
unique_key = "id"
watermark = { column = "updated_at", lag = "5m", overlap = "1h" }
*/
SELECT id, name, updated_at FROM {{ source("raw", "users") }}
WHERE updated_at >= {{ watermark_start }} AND updated_at < {{ watermark_end }}
`,
		"models/summary.sql": `/* idemc
materialized = "table"
[checks]
unique = ["user_id"]
min_rows = 1
relationships = { user_id = "users_dim.id" }
*/
SELECT t.user_id, u.name, t.n, t.total
FROM {{ ref("user_totals") }} AS t JOIN {{ ref("users_dim") }} AS u ON u.id = t.user_id
`,
		"models/v_daily.sql": `/* idemc
materialized = "view"
*/
SELECT d, count(*) AS n, sum(amount) AS total FROM {{ ref("daily") }} GROUP BY d
`,
	}
}

// faultTable is a relation the suite compares.
type faultTable struct {
	name  string
	raw   bool   // a seed, in the _raw schema
	part  string // partition column
	key   string // unique key (duplicate check)
	big   bool   // compared by aggregates per partition
	view  bool   // follows its upstream: not a region of its own
	model string // the audit job owning it
}

var faultTables = []faultTable{
	{name: "events", raw: true, key: "id", model: "events"},
	{name: "users", raw: true, key: "id", model: "users"},
	{name: "daily", part: "d", key: "id", model: "daily"},
	{name: "daily_big", part: "d", key: "k", big: true, model: "daily_big"},
	{name: "user_totals", key: "user_id", model: "user_totals"},
	{name: "users_dim", key: "id", model: "users_dim"},
	{name: "summary", key: "user_id", model: "summary"},
	{name: "v_daily", key: "d", view: true, model: "v_daily"},
}

// Exit codes of a fault child (the test binary running one build): never 0,
// so that a test binary that did not reach the child code is told apart.
const (
	childOK           = 10
	childUnitsFailed  = 11
	childBuildError   = 12
	childSetupFailure = 13
)

const faultChildEnv = "IDEMC_FAULT_CHILD"

type childSpec struct {
	Dir, AsOf, Start, End string
	Threads               int
}

// runFaultChild runs one build described by spec and exits.
func runFaultChild(spec string) {
	var cs childSpec
	if err := json.Unmarshal([]byte(spec), &cs); err != nil {
		fmt.Fprintln(os.Stderr, "fault child:", err)
		os.Exit(childSetupFailure)
	}
	buildChild("fault child", cs.Dir, compiler.Options{Start: cs.Start, End: cs.End}, cs.AsOf, cs.Threads)
}

// buildChild runs one build of the project in dir and exits with a child
// exit code, printing what failed for the parent to read (prefixed by who).
func buildChild(who, dir string, opts compiler.Options, asOfText string, threads int) {
	p, err := project.Load(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, who+":", err)
		os.Exit(childSetupFailure)
	}
	opts.AsOf, _ = time.Parse(time.RFC3339, asOfText)
	opts.Models, opts.Seeds = true, true
	res, err := runner.Build(context.Background(), p, runner.Options{AfterStep: faultinject.FromEnv(), Compile: opts, Threads: threads})
	if err != nil {
		fmt.Fprintln(os.Stderr, who+": build error:", err)
		os.Exit(childBuildError)
	}
	if !res.OK() {
		for _, u := range res.Units {
			if u.Error != "" {
				fmt.Fprintf(os.Stderr, "%s: unit %s %s: %s\n", who, u.ID, u.Status, firstLineOf(u.Error))
			}
		}
		os.Exit(childUnitsFailed)
	}
	os.Exit(childOK)
}

// Faults runs the fault injection suite on a target. The engine's test must
// be named TestFaults: the suite runs its child processes as
// `<test binary> -test.run=^TestFaults$`.
func Faults(t *testing.T, tgt Target, o Options) {
	if spec := os.Getenv(faultChildEnv); spec != "" {
		runFaultChild(spec)
	}
	o = o.resolve(t)
	t.Setenv("IDEMC_FAULT", "")
	t.Setenv("IDEMC_TRACE", "")
	s := &faultSuite{t: t, tgt: tgt, o: o, rng: rand.New(rand.NewSource(o.Seed)), started: time.Now(),
		outcomes: map[string]map[string]int{}, fired: map[plan.Purpose]int{}, missed: map[plan.Purpose][]string{}}
	// Delays come from a generator of their own: their range depends on
	// measured times, and must not shift the other draws of a seed.
	s.timing = rand.New(rand.NewSource(o.Seed + 1))
	s.failNext = s.rng.Intn(len(allPurposes))
	s.soak = os.Getenv("IDEMC_SOAK") == "1"
	t.Logf("%s: %d trials on %d lanes, %d days, seed %d (repeat with IDEMC_FAULT_SEED=%d IDEMC_FAULT_TRIALS=%d IDEMC_FAULT_LANES=%d IDEMC_FAULT_DAYS=%d)", tgt.Engine, o.Trials, o.Lanes, o.Days, o.Seed, o.Seed, o.Trials, o.Lanes, o.Days)
	s.kinds = []string{kindCrashRule, kindKillTimer, kindFailStep}
	if eng, ok := s.serverSessions(t); ok {
		s.kinds = []string{kindCrashRule, kindKillTimer, kindSessionKill, kindFailStep}
		s.ctl = eng
	}
	if !s.reference() {
		return
	}
	// First a rule at every step (deterministic), then the random trials.
	n := 0
	yes := true
	sweepKinds := []string{kindCrashRule, kindFailStep}
	if o.Short {
		sweepKinds = nil
		t.Logf("%s: short run, no sweep (IDEMC_FAULT_TRIALS=n or IDEMC_SOAK=1 for the sweep and more trials)", tgt.Engine)
	}
	for _, kind := range sweepKinds {
		for _, sp := range s.sweep(kind) {
			n++
			sp.rebuild = &yes
			name := fmt.Sprintf("sweep_%02d_%s_%s_%s", n, strings.TrimSuffix(kind, "_rule"), strings.ReplaceAll(sp.unit.id, "/", "_"), sp.purpose)
			t.Run(name, func(t *testing.T) { s.swept++; s.trial(t, n, sp) })
		}
	}
	s.randomTrials(n)
	s.summary()
}

type faultSuite struct {
	t      *testing.T
	tgt    Target
	o      Options
	rng    *rand.Rand
	timing *rand.Rand
	kinds  []string
	ctl    adapters.Engine // control connection of a server engine (session kills)

	ref      *snapshot
	units    []faultUnit // every model unit of the plan and its step purposes
	childDur time.Duration

	soak      bool // IDEMC_SOAK=1: the long sweep
	swept     int  // trials of the sweep
	started   time.Time
	failNext  int                       // next purpose of the fail_step cycle
	outcomes  map[string]map[string]int // kind → outcome → count
	fired     map[plan.Purpose]int      // fail rules that fired, by purpose
	missed    map[plan.Purpose][]string // fail rules that ran their unit but never fired
	midStmt   int                       // external kills that landed while a statement ran
	recovered int
}

type faultUnit struct {
	id       string
	purposes []plan.Purpose
	// post: the purpose's first step comes after the unit's data is
	// visible (after COMMIT, or after the publish of a recipe without a
	// transaction), so a failure there cannot roll the write back.
	post map[plan.Purpose]bool
}

func (u faultUnit) has(p plan.Purpose) bool {
	for _, x := range u.purposes {
		if x == p {
			return true
		}
	}
	return false
}

func (s *faultSuite) count(kind, outcome string) {
	if s.outcomes[kind] == nil {
		s.outcomes[kind] = map[string]int{}
	}
	s.outcomes[kind][outcome]++
}

// newFaultEnv is an env with the fault project; on PostgreSQL its sessions
// carry an application_name of their own, so that they can be found.
func (s *faultSuite) newFaultEnv(t *testing.T) (*env, string) {
	e := newEnv(t, s.tgt, faultFiles(s.o.Days))
	app := ""
	if s.tgt.Engine == "postgres" {
		dsn := s.tgt.Settings(e.dir)["dsn"]
		app = "idemc_fault_" + e.schema
		path := filepath.Join(e.dir, "project.toml")
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		old := fmt.Sprintf("dsn = %q", dsn)
		if !bytes.Contains(b, []byte(old)) {
			t.Fatalf("project.toml has no %s", old)
		}
		b = bytes.Replace(b, []byte(old), []byte(fmt.Sprintf("dsn = %q", withAppName(dsn, app))), 1)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return e, app
}

func withAppName(dsn, app string) string {
	if strings.Contains(dsn, "://") {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		return dsn + sep + "application_name=" + app
	}
	return dsn + " application_name=" + app
}

// reference builds the project once, cleanly, and keeps its contents; it
// also times a child build, which the random delays are drawn against.
func (s *faultSuite) reference() bool {
	t := s.t
	ok := t.Run("reference", func(t *testing.T) {
		ph := phases{start: time.Now()}
		e := newEnv(t, s.tgt, faultFiles(s.o.Days))
		res := e.build(s.asOf(), nil)
		e.mustSucceed(res)
		ph.mark("build")
		s.ref = s.snap(t, e)
		ph.mark("snapshot")
		for _, ft := range faultTables {
			if s.ref.tables[ft.name] == nil || len(s.ref.tables[ft.name]) == 0 {
				t.Fatalf("reference: %s is missing or empty", ft.name)
			}
		}
		// A forced second build leaves the same contents: the reference is
		// itself idempotent.
		e.mustSucceed(e.build(s.asOf(), func(o *compiler.Options) { o.Start, o.End = faultStart, s.end() }))
		ph.mark("forced build")
		again := s.snap(t, e)
		ph.mark("snapshot")
		if d := again.diff(s.ref); d != "" {
			t.Fatalf("a forced rerun of the clean build changed it: %s", d)
		}
		// The units and their steps, for the crash and fail rules.
		p, err := project.Load(e.dir)
		if err != nil {
			t.Fatal(err)
		}
		at, _ := time.Parse(time.RFC3339, s.asOf())
		pl, err := compiler.Compile(p, compiler.Options{AsOf: at, Models: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range pl.Units {
			if u.Seed {
				continue
			}
			fu := faultUnit{id: u.ID, post: map[plan.Purpose]bool{}}
			seen := map[plan.Purpose]bool{}
			tx, visible := false, false
			for _, st := range u.Steps {
				if st.Purpose == plan.Begin {
					tx = true
				}
				if !seen[st.Purpose] {
					seen[st.Purpose] = true
					fu.purposes = append(fu.purposes, st.Purpose)
					fu.post[st.Purpose] = visible || st.Purpose == plan.Commit || !tx && st.Purpose == plan.Publish
				}
				if st.Purpose == plan.Commit || !tx && st.Purpose == plan.Publish {
					visible = true
				}
			}
			s.units = append(s.units, fu)
		}
		// Two partitioned models, a merge, a watermark merge, a table, a view.
		if want := 2*s.o.Days + 4; len(s.units) != want {
			t.Fatalf("the fault project has %d model units, want %d", len(s.units), want)
		}
		// Time a clean child build: the child mode works, and its duration
		// bounds the random kill delays.
		// The shorter of two runs: a kill drawn in [0, that) mostly lands
		// while the child works, even when the machine is busy.
		for i := 0; i < 2; i++ {
			c, _ := s.newFaultEnv(t)
			t0 := time.Now()
			cmd, out := s.startChild(t, c, childSpec{Threads: 2}, "")
			err = cmd.Wait()
			if d := time.Since(t0); s.childDur == 0 || d < s.childDur {
				s.childDur = d
			}
			if code := exitCode(err); code != childOK {
				t.Fatalf("a clean child build exited %d, want %d:\n%s", code, childOK, out)
			}
			if d := s.snap(t, c).diff(s.ref); d != "" {
				t.Fatalf("a clean child build differs from the reference: %s", d)
			}
		}
		ph.mark("two child builds and snapshots")
		t.Logf("reference built; %d model units; a child build takes %v (%s)", len(s.units), s.childDur.Round(time.Millisecond), ph)
	})
	return ok
}

// startChild starts a build of the env's project in a child process.
func (s *faultSuite) startChild(t *testing.T, e *env, cs childSpec, fault string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cs.Dir, cs.AsOf = e.dir, s.asOf()
	spec, _ := json.Marshal(cs)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaults$", "-test.count=1")
	cmd.Env = append(os.Environ(), faultChildEnv+"="+string(spec), "IDEMC_FAULT="+fault, "IDEMC_TRACE=")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if st, ok := ee.Sys().(syscall.WaitStatus); ok && st.Signaled() {
			return -int(st.Signal())
		}
		return ee.ExitCode()
	}
	return -1000
}

func describeExit(code int) string {
	switch code {
	case childOK:
		return "completed"
	case childUnitsFailed:
		return "units failed"
	case childBuildError:
		return "build error"
	case -int(syscall.SIGKILL):
		return "killed"
	}
	return fmt.Sprintf("exit %d", code)
}

// trial runs one fault and the checks after it.
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
	var fault, outcome string
	failUnit := ""
	postCommit := false
	switch kind {
	case kindCrashRule:
		fault = fmt.Sprintf("crash:%s:%s", ru.id, rp)
		cmd, out := s.startChild(t, e, cs, fault)
		code := exitCode(cmd.Wait())
		outcome = describeExit(code)
		if code != -int(syscall.SIGKILL) {
			outcome = "not reached (" + outcome + ")"
			if code != childOK {
				t.Errorf("the child exited %d without its fault firing:\n%s", code, out)
			}
		}
	case kindKillTimer:
		delay := time.Duration(s.timing.Int63n(int64(s.childDur)))
		fault = fmt.Sprintf("SIGKILL after %v", delay.Round(time.Millisecond))
		t0 := time.Now()
		cmd, out := s.startChild(t, e, cs, "")
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			outcome = "finished before the kill (" + describeExit(exitCode(err)) + ")"
			s.observe(time.Since(t0), exitCode(err))
		case <-time.After(delay):
			active := s.activeStatement(cmd.Process.Pid, app, e.schema)
			_ = cmd.Process.Kill()
			code := exitCode(<-done)
			outcome = describeExit(code)
			if code != -int(syscall.SIGKILL) {
				outcome = "finished before the kill (" + outcome + ")"
				if code != childOK {
					t.Errorf("the child exited %d:\n%s", code, out)
				}
			} else if active != "" {
				s.midStmt++
				outcome = "killed mid-statement"
				fault += " during: " + active
			}
		}
	case kindSessionKill:
		delay := time.Duration(s.timing.Int63n(int64(s.childDur)))
		busy := s.rng.Intn(2) == 0
		scope := "all sessions"
		if busy {
			scope = "the busy session"
		}
		fault = fmt.Sprintf("server ends %s of the child after %v", scope, delay.Round(time.Millisecond))
		t0 := time.Now()
		cmd, out := s.startChild(t, e, cs, "")
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		var killed []string
		var code int
		timer := time.After(delay)
	wait:
		for {
			select {
			case err := <-done:
				code = exitCode(err)
				break wait
			case <-timer:
				timer = nil
				k, err := s.killSessions(cmd.Process.Pid, app, e.schema, busy)
				if err != nil {
					t.Errorf("ending the child's sessions: %v", err)
				}
				if len(k) == 0 {
					timer = time.After(5 * time.Millisecond) // poll until a session shows up
					continue
				}
				killed = k
				select {
				case err := <-done:
					code = exitCode(err)
				case <-time.After(2 * time.Minute):
					_ = cmd.Process.Kill()
					<-done
					t.Fatalf("the child did not finish within 2 minutes after its sessions were ended:\n%s", out)
				}
				break wait
			}
		}
		if len(killed) == 0 {
			outcome = "no session found (" + describeExit(code) + ")"
			s.observe(time.Since(t0), code)
		} else {
			fault += fmt.Sprintf(": %d ended (%s)", len(killed), strings.Join(killed, "; "))
			outcome = "sessions ended, child " + describeExit(code)
		}
		if code != childOK && code != childUnitsFailed && code != childBuildError {
			t.Errorf("the child exited %d after its sessions were ended:\n%s", code, out)
		}
		if code == childOK && len(killed) > 0 {
			// An idle pooled connection was ended and replaced: nothing lost.
			t.Logf("the child completed although %d of its sessions were ended (idle ones)", len(killed))
		}
	case kindFailStep:
		u, p := ru, rp
		fault = fmt.Sprintf("fail:%s:%s", u.id, p)
		postCommit = u.post[p]
		e.fault = fault
		res, err := e.buildErr(s.asOf(), window)
		e.fault = ""
		if err != nil {
			t.Fatalf("the build with %s: %v", fault, err)
		}
		var ur *runner.UnitResult
		for _, x := range res.Units {
			if x.ID == u.id {
				ur = x
			}
		}
		switch {
		case ur == nil:
			outcome = "not planned"
		case ur.Status == "failed" && strings.Contains(ur.Error, "injected failure"):
			outcome = "failed at " + string(p)
			s.fired[p]++
			failUnit = u.id
		case ur.Status == "failed":
			outcome = "failed otherwise"
			t.Errorf("%s failed without the injected failure: %s", u.id, ur.Error)
		default:
			outcome = "not reached (" + string(ur.Status) + ")"
			if ur.Status == "succeeded" {
				s.missed[p] = append(s.missed[p], u.id)
			}
		}
		if strings.HasPrefix(outcome, "failed at") {
			// The failed attempt has its own audit row, saying failed.
			if st := s.runStatus(t, e, u.id, res.RunID); st != "failed" {
				if st == "" {
					st = "no row"
				}
				t.Errorf("the failed attempt of %s (run %s, %s) has %s in the audit table, want a failed row", u.id, res.RunID, fault, st)
			}
		}
	}
	s.count(kind, strings.SplitN(outcome, " (", 2)[0])
	t.Logf("trial %d [%s, %s, threads %d]: %s → %s", n, kind, mode, cs.Threads, fault, outcome)
	ph.mark("fault")

	// Right after the fault: all or nothing, and no succeeded row without
	// its data.
	after := s.snap(t, e)
	s.checkAfterFault(t, after, rebuild, failUnit, postCommit)
	ph.mark("check")

	// A plain rerun succeeds and gives the clean run's contents.
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
	// Every unit's latest audit row says succeeded.
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
	if !t.Failed() {
		s.recovered++
		t.Logf("trial %d: recovered: the rerun ran %d units and left every table identical to a clean run (%s)", n, len(res.Units), ph)
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

// runStatus is the status of a unit's audit row written by one run ("" when
// there is none).
func (s *faultSuite) runStatus(t *testing.T, e *env, unit, runID string) string {
	model, part, _ := strings.Cut(unit, "/")
	rows := e.query(fmt.Sprintf("SELECT status FROM %s WHERE job_name = %s AND partition_key = %s AND run_id = %s", e.rel("idemc_audit"), e.d.String(model), e.d.String(part), e.d.String(runID)))
	if len(rows) == 0 {
		return ""
	}
	return rows[0][0]
}

// checkAfterFault: every region is in its previous state (fresh: empty;
// rebuild: the clean contents) or complete, and the audit agrees.
func (s *faultSuite) checkAfterFault(t *testing.T, after *snapshot, rebuild bool, failUnit string, postCommit bool) {
	t.Helper()
	if rebuild {
		if d := after.diff(s.ref); d != "" {
			t.Errorf("a fault during a rebuild changed the data (the previous state was the clean contents): %s", d)
		}
	} else {
		for _, ft := range faultTables {
			if ft.view {
				continue
			}
			got, want := after.tables[ft.name], s.ref.tables[ft.name]
			for part, fp := range got {
				if fp != want[part] {
					t.Errorf("%s partition %q is half written after the fault:\n got: %.300s\nwant: %.300s", ft.name, part, fp, want[part])
				}
			}
			if ft.part == "" && len(got) > 0 && len(got) != len(want) {
				t.Errorf("%s is half written after the fault", ft.name)
			}
		}
		if failUnit != "" && !postCommit {
			model, part, _ := strings.Cut(failUnit, "/")
			if _, ok := after.tables[model][part]; ok {
				t.Errorf("the failed unit %s left data behind", failUnit)
			}
		}
	}
	for _, ft := range faultTables {
		if after.dups[ft.name] != "" {
			t.Errorf("%s has duplicate rows after the fault: %s", ft.name, after.dups[ft.name])
		}
	}
	s.checkAudit(t, after, false)
}

// checkAudit: every succeeded row's region holds the clean contents (and as
// many rows as it recorded); after a rerun no row is left running.
func (s *faultSuite) checkAudit(t *testing.T, sn *snapshot, final bool) {
	t.Helper()
	tables := map[string]faultTable{}
	for _, ft := range faultTables {
		tables[ft.model] = ft
	}
	for _, a := range sn.audit {
		if final && a.status == "running" {
			t.Errorf("audit row left running after the rerun: %s/%s attempt %s (run %s)", a.job, a.part, a.attempt, a.run)
		}
		if a.status != "succeeded" {
			continue
		}
		ft, ok := tables[a.job]
		if !ok || ft.view {
			continue
		}
		got, want := sn.tables[ft.name], s.ref.tables[ft.name]
		if ft.part != "" {
			if got[a.part] != want[a.part] {
				t.Errorf("audit says %s/%s succeeded (run %s) but its partition is %s", a.job, a.part, a.run, describePart(got, a.part))
			} else if a.rows != "" && a.rows != "NULL" && a.rows != strconv.Itoa(sn.counts[ft.name][a.part]) {
				t.Errorf("audit says %s/%s succeeded with %s rows, the partition has %d", a.job, a.part, a.rows, sn.counts[ft.name][a.part])
			}
			continue
		}
		if !sameParts(got, want) {
			t.Errorf("audit says %s succeeded (run %s) but the table is %s", a.job, a.run, describeTable(got))
		}
	}
}

func describePart(parts map[string]string, p string) string {
	if parts == nil {
		return "missing (no table)"
	}
	if _, ok := parts[p]; !ok {
		return "empty"
	}
	return "different from a clean run"
}

func describeTable(parts map[string]string) string {
	if parts == nil {
		return "missing"
	}
	if len(parts) == 0 {
		return "empty"
	}
	return "different from a clean run"
}

func sameParts(a, b map[string]string) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func (s *faultSuite) summary() {
	kinds := make([]string, 0, len(s.outcomes))
	total := 0
	for _, k := range s.kinds {
		if s.outcomes[k] == nil {
			continue
		}
		var parts []string
		n := 0
		for o, c := range s.outcomes[k] {
			parts = append(parts, fmt.Sprintf("%s %d", o, c))
			n += c
		}
		sort.Strings(parts)
		total += n
		kinds = append(kinds, fmt.Sprintf("%s %d (%s)", k, n, strings.Join(parts, ", ")))
	}
	var fired []string
	for _, p := range allPurposes {
		if s.fired[p] > 0 {
			fired = append(fired, string(p))
		}
	}
	s.t.Logf("SUMMARY %s: %d trials (%d in the step sweep, %d random) in %v, seed %d: %s; external kills mid-statement %d; failures injected at: %s; recovered %d/%d",
		s.tgt.Engine, total, s.swept, total-s.swept, time.Since(s.started).Round(100*time.Millisecond), s.o.Seed, strings.Join(kinds, "; "), s.midStmt,
		strings.Join(fired, ", "), s.recovered, total)
	for _, p := range allPurposes {
		if len(s.missed[p]) > 0 && s.fired[p] == 0 {
			s.t.Errorf("IDEMC_FAULT rule fail:<unit>:%s never fired although %s ran with a %s step: the runner does not call the fault hook after %s steps, so a failure there is never tested",
				p, strings.Join(s.missed[p], ", "), p, p)
		}
	}
}

// snapshot is what the suite compares: each table's contents by partition
// ("" for an unpartitioned table; a nil map when the relation is missing),
// row counts, duplicate keys and the audit rows.
type snapshot struct {
	// relations are the names of every table and view of the trial's two
	// schemas ("raw." before the seeds' schema).
	relations []string
	tables    map[string]map[string]string
	counts    map[string]map[string]int
	dups      map[string]string
	audit     []auditRow
	// marks are the watermark models' high-water marks (idemc_state).
	marks string
}

type auditRow struct {
	job, part, status, rows, run, attempt string
}

// diff describes the first differences from want ("" when equal).
func (sn *snapshot) diff(want *snapshot) string {
	var out []string
	for _, ft := range faultTables {
		got, w := sn.tables[ft.name], want.tables[ft.name]
		if sameParts(got, w) {
			continue
		}
		if got == nil {
			out = append(out, ft.name+" is missing")
			continue
		}
		var parts []string
		for p := range w {
			if got[p] != w[p] {
				parts = append(parts, fmt.Sprintf("%q: %s", p, describePart(got, p)))
			}
		}
		for p := range got {
			if _, ok := w[p]; !ok {
				parts = append(parts, fmt.Sprintf("%q: not in a clean run", p))
			}
		}
		sort.Strings(parts)
		if len(parts) > 4 {
			parts = append(parts[:4], "…")
		}
		out = append(out, ft.name+" ("+strings.Join(parts, ", ")+")")
	}
	for _, ft := range faultTables {
		if sn.dups[ft.name] != "" {
			out = append(out, ft.name+" has duplicate keys: "+sn.dups[ft.name])
		}
	}
	return strings.Join(out, "; ")
}

// snap reads every table of the env, on one connection.
func (s *faultSuite) snap(t *testing.T, e *env) *snapshot {
	t.Helper()
	ctx := context.Background()
	ad, _ := adapters.Lookup(s.tgt.Engine)
	eng, err := ad.Open(ctx, s.tgt.Settings(e.dir))
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	sess, err := eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	d := ad.Dialect
	sn := &snapshot{tables: map[string]map[string]string{}, counts: map[string]map[string]int{}, dups: map[string]string{}}
	exists := map[string]bool{}
	rels, err := adapters.ListRelations(ctx, sess, d, []string{strings.ToLower(e.schema), strings.ToLower(e.schema) + "_raw"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rels {
		sc, name := strings.ToLower(r[0]), strings.ToLower(r[1])
		exists[sc+"."+name] = true
		switch sc {
		case strings.ToLower(e.schema):
			sn.relations = append(sn.relations, name)
		case strings.ToLower(e.schema) + "_raw":
			sn.relations = append(sn.relations, "raw."+name)
		}
	}
	sort.Strings(sn.relations)
	for _, ft := range faultTables {
		schema := e.schema
		if ft.raw {
			schema += "_raw"
		}
		if !exists[strings.ToLower(schema)+"."+ft.name] {
			continue
		}
		rel := d.Qualify(plan.Relation{Schema: schema, Name: ft.name})
		parts, counts := map[string]string{}, map[string]int{}
		if ft.big {
			p, k, v := d.Quote(ft.part), d.Quote(ft.key), d.Quote("v")
			_, rows, err := sess.Query(ctx, fmt.Sprintf("SELECT %s, count(*), count(DISTINCT %s), sum(%s), sum(%s), min(%s), max(%s) FROM %s GROUP BY %s", p, k, k, v, k, k, rel, p), 0)
			if err != nil {
				t.Fatalf("%s: %v", ft.name, err)
			}
			for _, r := range rows {
				key := partKey(r[0])
				parts[key] = strings.Join(r[1:], "\t")
				counts[key], _ = strconv.Atoi(r[1])
				if r[1] != r[2] {
					sn.dups[ft.name] += fmt.Sprintf("partition %s: %s rows, %s distinct keys; ", key, r[1], r[2])
				}
			}
		} else {
			cols, rows, err := sess.Query(ctx, "SELECT * FROM "+rel, 0)
			if err != nil {
				t.Fatalf("%s: %v", ft.name, err)
			}
			pi, ki := -1, -1
			for i, c := range cols {
				if strings.EqualFold(c, ft.part) {
					pi = i
				}
				if strings.EqualFold(c, ft.key) {
					ki = i
				}
			}
			lines := map[string][]string{}
			keys := map[string]int{}
			for _, r := range rows {
				key := ""
				if pi >= 0 {
					key = partKey(r[pi])
				}
				lines[key] = append(lines[key], strings.Join(r, "\t"))
				counts[key]++
				if ki >= 0 {
					keys[r[ki]]++
				}
			}
			for key, ls := range lines {
				sort.Strings(ls)
				parts[key] = strings.Join(ls, "\n")
			}
			for k, n := range keys {
				if n > 1 {
					sn.dups[ft.name] += fmt.Sprintf("%s=%s ×%d; ", ft.key, k, n)
				}
			}
		}
		sn.tables[ft.name], sn.counts[ft.name] = parts, counts
	}
	if exists[strings.ToLower(e.schema)+".idemc_state"] {
		_, rows, err := sess.Query(ctx, "SELECT job_name, high_water FROM "+d.Qualify(plan.Relation{Schema: e.schema, Name: "idemc_state"})+" ORDER BY job_name, high_water", 0)
		if err != nil {
			t.Fatal(err)
		}
		sn.marks = strings.Join(flatten(rows), "; ")
	}
	if exists[strings.ToLower(e.schema)+".idemc_audit"] {
		_, rows, err := sess.Query(ctx, "SELECT job_name, partition_key, status, row_count, run_id, attempt FROM "+d.Qualify(plan.Relation{Schema: e.schema, Name: "idemc_audit"}), 0)
		if err != nil {
			t.Fatal(err)
		}
		sn.audit = attemptRows(rows)
	}
	return sn
}

// attemptRows is one audit row per unit attempt (run, job, partition,
// attempt), its final one: an append-only audit (Spark) records an attempt
// as a running row and then a final row (succeeded, failed, or abandoned
// by a later run); an updating audit has the one row.
func attemptRows(rows [][]string) []auditRow {
	var out []auditRow
	at := map[[4]string]int{}
	for _, r := range rows {
		a := auditRow{job: r[0], part: r[1], status: r[2], rows: r[3], run: r[4], attempt: r[5]}
		k := [4]string{a.run, a.job, a.part, a.attempt}
		i, seen := at[k]
		switch {
		case !seen:
			at[k] = len(out)
			out = append(out, a)
		case out[i].status == "running":
			out[i] = a
		}
	}
	return out
}

// partKey is the canonical day key of a partition value's text.
func partKey(v string) string {
	if len(v) >= 10 {
		return v[:10]
	}
	return v
}

func firstLineOf(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
