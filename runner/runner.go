package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// Options of one build, run or seed.
type Options struct {
	Compile  compiler.Options
	Threads  int
	FailFast bool
	// Tests runs tests/*.sql after the models (build).
	Tests bool
	// Retry finishes the most recent run: its plan is made again from the
	// options it recorded in idemc_runs, at its logical time, and every
	// unit not done yet runs (idemc retry).
	Retry bool
	// Command names the invocation in idemc_runs (build, run, seed, retry,
	// verify); "" is build.
	Command string
	// Argv is the command line, recorded in idemc_runs to reproduce the run.
	Argv []string
	// Out receives one line per finished unit and the summary; Progress,
	// when set, receives a live progress line (a terminal).
	Out      io.Writer
	Progress io.Writer
	// Trace, when set, receives each statement's duration (IDEMC_TRACE=1).
	Trace io.Writer
	// AfterStep is called after each step of a unit (the fault trials).
	AfterStep StepHook
	// Observers are told of the run, each unit and the end as they happen
	// (observer.go): the JSON event log is one.
	Observers []Observer
	// MaxRequests bounds the requests of each HTTP source (--max-requests;
	// 0: no bound), and HTTPRetryBase, when set, is the first backoff
	// delay of their retries (tests shorten it).
	MaxRequests   int
	HTTPRetryBase time.Duration
}

// UnitResult is what one unit did.
type UnitResult struct {
	ID        string        `json:"unit"`
	Model     string        `json:"model"`
	Partition string        `json:"partition"`
	Kind      string        `json:"kind"`
	Status    UnitStatus    `json:"status"`
	Rows      int64         `json:"rows"`
	Seconds   float64       `json:"seconds"`
	Error     string        `json:"error,omitempty"`
	SkippedBy string        `json:"skipped_because,omitempty"`
	Note      string        `json:"note,omitempty"`
	Checks    []CheckResult `json:"checks,omitempty"`
	SQLFile   string        `json:"compiled_sql,omitempty"`
	Attempted bool          `json:"-"`
}

// CheckResult is one check's outcome in a unit.
type CheckResult struct {
	Name     string      `json:"name"`
	Severity string      `json:"severity"`
	Status   CheckStatus `json:"status"`
	Sample   []string    `json:"sample,omitempty"`
}

// Result of a run.
type Result struct {
	RunID     string        `json:"run_id"`
	Target    string        `json:"target"`
	AsOf      time.Time     `json:"as_of"`
	Started   time.Time     `json:"started_at"`
	Seconds   float64       `json:"seconds"`
	Units     []*UnitResult `json:"units"`
	Tests     []*TestResult `json:"tests,omitempty"`
	Succeeded int           `json:"succeeded"`
	Failed    int           `json:"failed"`
	Skipped   int           `json:"skipped"`
	Warnings  int           `json:"warnings"`
	// Outcome is succeeded, failed or interrupted (SIGINT, SIGTERM).
	Outcome string `json:"outcome"`
	// RolledBack counts the units in flight when the run was interrupted;
	// NotStarted the units the interrupt kept from starting.
	RolledBack int `json:"rolled_back"`
	NotStarted int `json:"not_started"`
	// RetryOf is the run an idemc retry repeated.
	RetryOf string `json:"retry_of,omitempty"`
	// UpToDate counts the selected units that needed no run.
	UpToDate      int      `json:"up_to_date"`
	UpToDateUnits []string `json:"up_to_date_units,omitempty"`
	// Statements counts the statements that could write (everything but
	// queries) this run issued, bookkeeping included.
	Statements int64 `json:"statements"`
}

// OK reports whether nothing failed and the run was not interrupted.
func (r *Result) OK() bool {
	if r.Failed > 0 || r.Interrupted() {
		return false
	}
	for _, t := range r.Tests {
		if t.Status == CheckFail {
			return false
		}
	}
	return true
}

// Interrupted reports whether an interrupt ended the run before every unit
// ran (exit code 130).
func (r *Result) Interrupted() bool { return r.Outcome == OutcomeInterrupted }

// NewRunID returns a time-ordered unique run id.
func NewRunID(now time.Time) string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return now.UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

// Build compiles the project against the target's state and runs the plan.
// A compile error (diag list) or a target error comes back as the error, and
// nothing has been written; unit failures are in the Result.
func Build(ctx context.Context, p *project.Project, o Options) (*Result, error) {
	started := time.Now()
	// Compile once without a connection first: bad input must be reported
	// before anything is written.
	// The renders and analyses are kept for the plan made with the state.
	o.Compile.NoRecipes = true // built per unit, after its resolve phase
	prep, err := compiler.Prepare(p, o.Compile)
	if err != nil {
		return nil, err
	}
	pre, err := prep.Plan(o.Compile)
	if err != nil {
		return nil, err
	}
	if err := checkHTTPEnv(p, pre); err != nil {
		return nil, err
	}
	eng, ad, err := Connect(ctx, p, o.Compile.Target)
	if err != nil {
		return nil, err
	}
	defer eng.Close()
	return buildOn(ctx, p, o, prep, pre, eng, ad, started)
}

// buildOn is Build on an open engine (a fake one in the runner's tests);
// pre is the plan prep made without state.
func buildOn(ctx context.Context, p *project.Project, o Options, prep *compiler.Prepared, pre *plan.Plan, eng adapters.Engine, ad *adapters.Adapter, started time.Time) (*Result, error) {
	r := &run{p: p, o: o, eng: eng, ad: ad, d: ad.Dialect, ddl: map[plan.Relation]*sync.Mutex{}, tables: tablesOf(pre), nodes: catalogScope(pre, plan.State{}), trace: lockedWriter(o.Trace), prep: prep}
	r.views, _ = ad.Dialect.(adapters.ViewBinder)
	r.res = &Result{RunID: NewRunID(started), Started: started.UTC()}
	defer func() {
		if r.release != nil {
			r.release()
		}
	}()
	res, err := r.build(ctx)
	return res, r.runFatal(err)
}

type run struct {
	p   *project.Project
	o   Options
	eng adapters.Engine
	ad  *adapters.Adapter
	d   adapters.Dialect
	// views is the dialect's ViewBinder, nil when its views bind by name.
	views adapters.ViewBinder
	res   *Result

	prep  *compiler.Prepared // the renders of the stateless compile
	pl    *plan.Plan
	state plan.State
	db    *dbState
	trace io.Writer       // Options.Trace, one line at a time
	files *compiledWriter // writes target/compiled while the units run

	release func()      // releases the run lock (engines with RunLocks)
	beats   *heartbeats // the run's liveness on engines without RunLocks
	// claimWait, when set, replaces a unit claim's wait (tests).
	claimWait time.Duration

	tables   []plan.Relation // every seed's and table model's relation, probed for emptiness
	nodes    []plan.Relation // every node's relation, looked up in the catalog
	runRow   *plan.RunRow    // this run's idemc_runs row
	recorded *runOptions     // a retry's options, copied from the run it finishes

	mu    sync.Mutex // guards ddl, res.Units appends, fatal and output
	fatal *fatalStop // the first unrecoverable engine error: no unit starts after it
	ddl   map[plan.Relation]*sync.Mutex
	done  int
	total int
	units map[string]*plan.Unit // the plan's units by ID, for observers
	prog  *progress             // the live line on a terminal, nil elsewhere

	obsMu sync.Mutex // one observer call at a time

	statements atomic.Int64 // Exec calls, for Result.Statements

	known knownDests // destinations' columns as this run left them (schema_cache.go)
	// claims commits the root units' running rows a chunk at a time (claims.go).
	claims *claims
	kinds  *kindSnapshot // relations' kinds for each one's first unit (schema_cache.go)
	// latestMissing: the audit table predates idemc_latest, which the
	// run reads around and fills once it has work (latest.go).
	latestMissing bool
}

func (r *run) build(ctx context.Context) (*Result, error) {
	// The engine may name what the run leaves behind by it (Spark's seed
	// loads), for the next run to tell a dead run's leftovers.
	ctx = adapters.WithRun(ctx, r.res.RunID)
	sess, err := r.eng.Session(ctx)
	if err != nil {
		return nil, err
	}
	r.state = stateOf(r.p, r.o.Compile.Target)
	sess = r.counted(sess)
	if err := r.prepareState(ctx, sess); err != nil {
		sess.Close()
		return nil, err
	}
	if err := r.abandonDeadRuns(ctx, sess, r.readStateOf()); err != nil {
		sess.Close()
		return nil, fmt.Errorf("runner: marking abandoned units: %w", err)
	}
	st, err := readState(ctx, sess, r.d, r.readStateOf(), r.tables, append(slices.Clip(r.nodes), r.state.Audit))
	if err != nil {
		sess.Close()
		return nil, fmt.Errorf("runner: reading the audit table: %w", err)
	}
	r.db = st
	if err := r.dropStaleStages(ctx, sess); err != nil {
		sess.Close()
		return nil, fmt.Errorf("runner: %w", err)
	}
	copts := r.o.Compile
	copts.State = st
	if r.o.Retry {
		if err := r.retryPlan(ctx, sess, &copts); err != nil {
			sess.Close()
			return nil, err
		}
	}
	copts.RunID = r.res.RunID
	copts.GitCommit = gitCommit(r.p.Root)
	pl, err := r.prep.Plan(copts)
	if err != nil {
		sess.Close()
		return nil, err
	}
	// A run with work is recorded (retry replans it); an up-to-date build
	// writes nothing at all.
	if len(pl.Units) > 0 {
		if err := r.startRun(ctx, sess, pl, copts); err != nil {
			sess.Close()
			return nil, err
		}
		if r.beats != nil {
			if r.release, err = r.beats.HoldRun(ctx, r.res.RunID); err != nil {
				sess.Close()
				return nil, fmt.Errorf("runner: writing the run's heartbeat: %w", err)
			}
		}
	}
	// Schemas are created once, up front: concurrent CREATE SCHEMA
	// statements conflict on some engines.
	err = createSchemas(ctx, r.eng, sess, r.d, pl)
	sess.Close()
	if err != nil {
		return nil, fmt.Errorf("runner: creating schemas: %w", err)
	}
	r.pl = pl
	r.res.Target, r.res.AsOf = pl.Target, pl.AsOf
	if err := writeManifest(r.p.Root, pl, r.d); err != nil {
		return nil, err
	}
	r.files = startCompiledWriter()
	err = r.walk(ctx, pl)
	r.files.flush()
	r.files = nil
	if err != nil {
		return nil, err
	}
	r.res.Seconds = time.Since(r.res.Started).Seconds()
	r.res.Statements = r.statements.Load()
	r.finishRun(ctx, r.res.Outcome)
	r.summary()
	r.observeEnd()
	return r.res, r.writeResults()
}

// walk runs the plan's units in dependency order, then the singular tests
// when everything succeeded, and sets the run's outcome.
func (r *run) walk(ctx context.Context, pl *plan.Plan) error {
	r.total = len(pl.Units)
	units := map[string]*plan.Unit{}
	for _, u := range pl.Units {
		units[u.ID] = u
	}
	r.units = units
	r.observeStart(pl)
	r.startProgress()
	threads := r.o.Threads
	if threads <= 0 {
		threads = 4
	}
	r.res.UpToDate = pl.UpToDateCount
	r.res.UpToDateUnits = pl.UpToDate
	results := map[string]*UnitResult{}
	r.claims = r.newClaims(pl)
	r.kinds = &kindSnapshot{}
	defer r.releaseClaims(ctx)
	walk, err := pl.UnitGraph.Walk(ctx, dag.WalkOptions{Threads: threads, FailFast: r.o.FailFast}, func(ctx context.Context, id string) error {
		if ctx.Err() != nil {
			return errStopped // picked just as the interrupt came
		}
		r.mu.Lock()
		stop := r.fatal
		r.mu.Unlock()
		if stop != nil {
			ur := notStarted(units[id])
			r.mu.Lock()
			results[id] = ur
			r.mu.Unlock()
			return errStopped
		}
		r.observeUnitStart(units[id])
		r.progressStarted(id)
		ur := r.runUnit(ctx, units[id])
		r.mu.Lock()
		results[id] = ur
		r.mu.Unlock()
		switch ur.Status {
		case "failed":
			r.noteFatal(ur)
			return errors.New(ur.Error)
		case StatusInterrupted, StatusNotStarted:
			return errStopped
		}
		return nil
	})
	r.stopProgress()
	if err != nil {
		return err
	}
	r.collect(walk, results, units)
	if r.o.Tests && r.res.Failed == 0 && r.res.Skipped == 0 && !r.res.Interrupted() {
		tr, err := runTests(ctx, r.eng, pl, selectedTests(pl, r.o.Compile), nil)
		if err != nil {
			return err
		}
		r.res.Tests = tr
	}
	if r.res.Outcome == "" {
		r.res.Outcome = OutcomeSucceeded
		if !r.res.OK() {
			r.res.Outcome = OutcomeFailed
		}
	}
	return nil
}

// collect puts the walk's results in the Result, in plan order, and
// counts them. A unit skipped because of a failure gets its line now; one
// the interrupt kept from starting is only counted.
func (r *run) collect(walk []dag.Result, results map[string]*UnitResult, units map[string]*plan.Unit) {
	for _, w := range walk {
		ur := results[w.ID]
		if ur == nil {
			u := units[w.ID]
			if stopped(w, results) {
				ur = notStarted(u)
			} else {
				ur = &UnitResult{ID: w.ID, Model: u.Model, Partition: u.Partition, Kind: kindOf(u), Status: StatusSkipped, SkippedBy: w.SkippedBecause}
				if ur.SkippedBy == "" && w.Err != nil {
					ur.Error = w.Err.Error()
				}
				r.line(ur)
			}
		}
		r.res.Units = append(r.res.Units, ur)
		switch ur.Status {
		case "succeeded":
			r.res.Succeeded++
		case "failed":
			r.res.Failed++
		case StatusInterrupted:
			r.res.RolledBack++
		case StatusNotStarted:
			r.res.NotStarted++
		default:
			r.res.Skipped++
		}
		for _, c := range ur.Checks {
			if c.Status == CheckWarn {
				r.res.Warnings++
			}
		}
	}
	if r.fatal == nil && (r.res.RolledBack > 0 || r.res.NotStarted > 0) {
		r.res.Outcome = OutcomeInterrupted
	}
}

// noteFatal explains a unit that failed with an unrecoverable engine error
// and, for the first one, stops the walk from starting new units. Later
// units failing alike (they were already running) point to the first.
func (r *run) noteFatal(ur *UnitResult) {
	kind := classifyFatal(ur.Error)
	if kind == notFatal {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fatal != nil {
		ur.Error = fmt.Sprintf("%s (the same cause as %s, above)", ur.Error, r.fatal.unit)
		return
	}
	r.fatal = &fatalStop{unit: ur.ID, kind: kind}
	ur.Error = r.explainFatal(ur, kind)
}

// abandonDeadRuns takes this run's lock (RunLocks, or heartbeats on
// engines without: runLiveness) and marks the running rows of every dead
// run abandoned: on a single-writer engine every other run is dead;
// elsewhere a run is dead when its lock is free or its heartbeats stopped.
func (r *run) abandonDeadRuns(ctx context.Context, sess adapters.Session, rs plan.State) error {
	locks := r.runLiveness()
	if hb, ok := locks.(*heartbeats); ok {
		r.beats = hb // beating starts once the run has work: an up-to-date build writes nothing
	} else if locks != nil {
		release, err := locks.HoldRun(ctx, r.res.RunID)
		if err != nil {
			return err
		}
		r.release = release
	}
	_, rows, err := sess.Query(ctx, sqlgen.RunningQuery(r.d, rs), 0)
	if err != nil {
		return err
	}
	for _, row := range rows {
		other := row[0]
		if other == r.res.RunID {
			continue
		}
		if locks != nil {
			alive, err := locks.RunAlive(ctx, other)
			if err != nil {
				return err
			}
			if alive {
				continue
			}
		}
		if _, err := adapters.ExecSQL(ctx, sess, sqlgen.Abandon(r.d, r.state, other)); err != nil {
			return err
		}
		if q := sqlgen.LatestAbandon(r.d, rs, other); q != "" {
			if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
				return err
			}
		}
	}
	return nil
}

// createSchemas creates every schema the plan writes to.
func createSchemas(ctx context.Context, e adapters.Engine, s adapters.Session, d adapters.Dialect, pl *plan.Plan) error {
	done := map[plan.Relation]bool{}
	for _, u := range pl.Units {
		rel := pl.Nodes[u.Model].Relation
		key := plan.Relation{Database: rel.Database, Schema: rel.Schema}
		if done[key] || rel.Schema == "" {
			continue
		}
		done[key] = true
		if err := execIdempotent(ctx, e, s, &plan.Step{SQL: d.CreateSchema(rel)}); err != nil {
			return err
		}
	}
	return nil
}

func kindOf(u *plan.Unit) string {
	if u.HTTP {
		return "http"
	}
	if u.Seed {
		return "seed"
	}
	if u.Write.Strategy != "" {
		return u.Write.Strategy
	}
	return u.Write.Materialized
}

// ddlLock serializes the DDL phase of units writing the same relation, so
// two partitions of one model never race to create or alter it.
func (r *run) ddlLock(rel plan.Relation) *sync.Mutex {
	r.mu.Lock()
	defer r.mu.Unlock()
	m := r.ddl[rel]
	if m == nil {
		m = &sync.Mutex{}
		r.ddl[rel] = m
	}
	return m
}

// gitCommit reads HEAD without running git.
func gitCommit(root string) string {
	dir := filepath.Join(root, ".git")
	head, err := os.ReadFile(filepath.Join(dir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(head))
	if !strings.HasPrefix(h, "ref: ") {
		return h
	}
	ref := strings.TrimPrefix(h, "ref: ")
	if b, err := os.ReadFile(filepath.Join(dir, ref)); err == nil {
		return strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile(filepath.Join(dir, "packed-refs")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(line, " "+ref) {
				return strings.Fields(line)[0]
			}
		}
	}
	return ""
}
