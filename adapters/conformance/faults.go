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
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
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
