// Package compiler turns a project into a Plan: load → render → analyse →
// graph → plan. It is pure: it reads files and never opens a connection; what
// it needs to know about the warehouse (which partitions succeeded, which
// tables exist) comes through the State interface.
//
// Compile runs the phases in this order, one file each:
//
//	load.go      the target, and a node for every model and seed
//	analysis.go  render and analyse every model (in parallel); code hashes
//	graph.go     refs, sources and checks become edges; findings; the order
//	checks.go    the [checks] of a model become the engine's checks
//	select.go    --select/--exclude, plus missing upstream relations
//	recipes.go   units (the planner, units.go) and their SQL; singular tests
//	expand.go    a model's SQL for the target and one window
package compiler

import (
	"cmp"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/compiler/suggest"
	"github.com/idemc/idemc/plan"
)

// Options of one compile.
type Options struct {
	Target          string // target name; "" for the project's default
	Select, Exclude []string
	Partition       string // exactly this partition
	Start, End      string // partitions starting in [Start, End)
	AsOf            time.Time
	FullRefresh     bool
	Vars            map[string]any
	State           State
	// Seeds includes seed loads in the plan (build, seed); run excludes them.
	Seeds bool
	// HTTP includes HTTP source fetches (build, ingest).
	HTTP bool
	// Models includes model units (false for idemc seed).
	Models bool
	// RunID and GitCommit fill the audit rows of the recipes.
	RunID, GitCommit string
	// NoRecipes leaves every unit's Steps empty: the runner builds each
	// unit's recipe itself, once it has read what the recipe depends on.
	NoRecipes bool
	// NoUnits stops after the selection: nodes, graph, findings and
	// Selected, no units (ls and lint need nothing more).
	NoUnits bool
	// Explain fills each unit's Reason (idemc plan): why it runs.
	Explain bool
	// Results are each model's outcome in the latest run (success, warn,
	// error, fail, skipped), for result: selectors: read from
	// target/run_results.json by the command.
	Results map[string]string
	// Work, when set, counts the work done (tests and benchmarks).
	Work *Work
	// Cache is the folder of the compile cache (the project's target/ for
	// the commands); "" renders and analyses every model afresh.
	Cache string
	// CacheAhead, when set, is the cache of Cache read while the project
	// loaded (ReadCacheAhead); the first compile given it takes it.
	CacheAhead *CacheAhead
	// LintOnly leaves error findings in Plan.Findings instead of failing.
	LintOnly bool
	// Lineage fills each model node's column lineage (idemc docs); off,
	// the analysis does not trace columns (it costs about a tenth more
	// allocations per model).
	Lineage bool
	// Units, when not nil, plans exactly these unit ids ("model" or
	// "model/partition"), forced (idemc retry and verify).
	Units []string
	// Workers bounds render/analysis concurrency (default GOMAXPROCS).
	Workers int
	// Log receives templates' log() messages (info: shown to the user,
	// else debug only); nil drops them. Called from render goroutines.
	Log func(msg string, info bool)
	// ResumeFrom, for idemc retry, is the run id of the run being finished:
	// a forced unit whose latest attempt succeeded in it or later (run ids
	// are time-ordered) is done and does not run again.
	ResumeFrom string
	// Reuse, when set (idemc compile, with a Cache), is asked about every
	// unit once its Key is computed: steps > 0 says the unit's file under
	// target/compiled already holds the recipe of that key, so the recipe
	// is not built again (Unit.Reused). A warm compile of 10,000 models spent
	// a third of its time building and formatting recipes it had written.
	Reuse func(u *plan.Unit) (steps int)
	// Filed, when set (idemc compile), is given every unit whose recipe
	// was just built, from the worker that built it, in no order; true
	// says the unit's file under target/compiled is written with that
	// recipe, and the unit keeps only its number of steps (Unit.Reused):
	// a fresh compile of 10,000 models held every recipe, ~50 MB, until
	// its files were written. It is not called when the plan has errors
	// (bad input writes nothing).
	Filed func(u *plan.Unit) bool
	// KeepVersions (verify): a unit rerun with the inputs of its latest
	// success keeps that success's data version, so that readers need not
	// run again (verify proves the rerun left the same rows).
	KeepVersions bool
}

// Error returned when compilation fails is a diag.List (exit code 2).

// compilation is one Compile call: its inputs and what each phase leaves
// for the next, so that helpers need not pass them along by hand. A phase
// that runs in parallel (render, SQL) reads it and writes only the model
// or unit it is given.
type compilation struct {
	p      *project.Project
	opts   Options
	target string // the target's name
	tgt    *project.Target
	d      adapters.PlanDialect
	state  plan.State // where the audit table lives
	plan   *plan.Plan

	models map[string]*compiled // by model name
	list   []*compiled          // in p.Models order (by name)
	names  []string             // every model and seed, sorted, for "did you mean"
	env    *render.Env
	rctx   *render.Context // the render context every model starts from
	// workers bounds the parallel phases.
	workers int
	order   []string        // models and seeds in dependency order
	chosen  map[string]bool // selected, with the upstream relations to build
	tests   []renderedTest  // tests/*.sql, rendered at prepare
	cache   *compileCache   // nil without Options.Cache
	saved   <-chan struct{} // closed once the compile cache is written (nil: nothing to wait for)
	keyEnv  []byte          // the cache's environment hash, for unit keys (nil without a cache)
	errs    diag.List
	// lintErrs are the error findings by model: they fail a plan that
	// selects the model (selectNodes), not one that leaves it out.
	lintErrs map[string][]diag.Finding
}

// Compile builds the plan. On bad input the error is a diag.List; lint
// warnings and notes are returned in Plan.Findings either way.
func Compile(p *project.Project, opts Options) (*plan.Plan, error) {
	pr, err := Prepare(p, opts)
	if pr == nil || err != nil {
		return pr.partial(), err
	}
	return pr.plan(pr.base) // used once: no need to copy it
}

// Prepared is the part of a compile that does not depend on the warehouse:
// the project loaded, every model rendered and analysed, the graph, the
// checks, the findings and the model nodes. Plan can be called on it more
// than once (build plans without state first, to refuse bad input before
// connecting, then with the audit state) and never renders again unless
// the state changes what a model renders.
type Prepared struct {
	base *compilation
	err  error // bad input found (a cycle, a lint error): no planning
}

// Prepare renders and analyses the project for opts' target, vars and
// flags. On bad input the error is a diag.List.
func Prepare(p *project.Project, opts Options) (*Prepared, error) {
	cc, err := newCompilation(p, opts)
	if err != nil {
		return nil, err
	}
	cc.addNodes()
	if err := cc.addHTTPNodes(); err != nil {
		return nil, err
	}
	if err := cc.renderAll(); err != nil {
		cc.waitSaved()
		return nil, err
	}
	pr := &Prepared{base: cc}
	if !cc.connect() {
		cc.waitSaved()
		pr.err = cc.errs.Err()
		return pr, pr.err
	}
	cc.addModelNodes()
	cc.renderTests()
	return pr, nil
}

// partial is the plan of a prepare that failed, for its findings.
func (pr *Prepared) partial() *plan.Plan {
	if pr == nil {
		return nil
	}
	return pr.base.plan
}

// Plan plans opts (selection, window, state) on the prepared project.
// When opts change what was rendered (target, vars, full refresh, lineage,
// lint-only) or the state flips a model's is_incremental(), the project
// is compiled afresh for them: a plan never reads a stale render.
func (pr *Prepared) Plan(opts Options) (*plan.Plan, error) {
	if pr.err != nil {
		return pr.base.plan, pr.err
	}
	if cc := pr.derive(opts); cc != nil {
		return pr.plan(cc)
	}
	return Compile(pr.base.p, opts)
}

// plan runs the planning phases on a derived compilation. It returns
// once the compile cache is written: a command that planned leaves it
// whole.
func (pr *Prepared) plan(cc *compilation) (*plan.Plan, error) {
	defer cc.waitSaved()
	if err := cc.selectNodes(); err != nil {
		return cc.plan, err
	}
	if cc.opts.NoUnits {
		return cc.plan, cc.errs.Err()
	}
	cc.planAndFill()
	cc.compileTests()
	return cc.plan, cc.errs.Err()
}

// derive is a compilation for opts sharing the prepared renders, with a
// plan of its own (nodes copied: planning fills their SQL); nil when a
// render would differ under opts.
func (pr *Prepared) derive(opts Options) *compilation {
	b := pr.base
	opts = withDefaults(opts)
	tname := opts.Target
	if tname == "" {
		tname = b.p.DefaultTarget
	}
	if tname != b.target || opts.FullRefresh != b.opts.FullRefresh || opts.Lineage != b.opts.Lineage ||
		opts.LintOnly != b.opts.LintOnly || !reflect.DeepEqual(opts.Vars, b.opts.Vars) {
		return nil
	}
	for _, c := range b.list {
		if c.tpl.UsesIncremental && c.incremental != isIncremental(c, opts) {
			return nil
		}
	}
	cc := *b
	cc.opts = opts
	cc.chosen = nil
	cc.errs = append(diag.List(nil), b.errs...)
	cc.plan = &plan.Plan{Project: b.plan.Project, Target: b.plan.Target, Engine: b.plan.Engine, AsOf: opts.AsOf,
		Nodes: make(map[string]*plan.Node, len(b.plan.Nodes)), Graph: b.plan.Graph,
		Findings: append([]diag.Finding(nil), b.plan.Findings...)}
	for n, node := range b.plan.Nodes {
		cp := *node
		cc.plan.Nodes[n] = &cp
	}
	return &cc
}

// withDefaults fills the options a compile needs set.
func withDefaults(opts Options) Options {
	if opts.State == nil {
		opts.State = NoState{}
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = time.Now().UTC()
	}
	opts.AsOf = opts.AsOf.UTC()
	return opts
}

// newCompilation fills the defaults of opts and finds the target and its
// engine's dialect.
func newCompilation(p *project.Project, opts Options) (*compilation, error) {
	opts = withDefaults(opts)
	tname := opts.Target
	if tname == "" {
		tname = p.DefaultTarget
	}
	tgt, ok := p.Targets[tname]
	if !ok && tname == "" {
		return nil, diag.List{diag.Errorf(project.FileName, 1, 0, "no target chosen: add default_target = %q (or pass --target NAME); declared targets: %s",
			firstOr(sortedNames(p.Targets), "local"), cmp.Or(strings.Join(sortedNames(p.Targets), ", "), "none yet: add a [targets.local] section"))}
	}
	if !ok {
		hint := ""
		if s := suggest.Closest(tname, sortedNames(p.Targets)); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, diag.List{diag.Errorf(cmp.Or(p.TargetsFile, project.FileName), 0, 0, "%s", p.UndeclaredTarget(tname, hint, sortedNames(p.Targets)))}
	}
	if tgt.SchemaErr != nil {
		return nil, diag.List{tgt.SchemaErr.(*diag.Error)}
	}
	if p.TargetBound != "" && p.TargetBound != tname {
		// A dbt config() read target.x when the project loaded; the
		// commands load it for the target they compile for (LoadFor).
		return nil, diag.List{diag.Errorf(project.DBTFileName, 0, 0, "a model's config() reads target.*, which was read for target %q when the project loaded; load the project for %q (project.LoadFor) to compile for it", p.TargetBound, tname)}
	}
	ad, ok := adapters.Lookup(tgt.Engine)
	if !ok {
		return nil, diag.List{diag.Errorf(project.FileName, tgt.Line, 0, "target %q: engine %q is not in this build of idemc (it has %s)", tname, tgt.Engine, strings.Join(adapters.Names(), ", "))}
	}
	return &compilation{p: p, opts: opts, target: tname, tgt: tgt, d: ad.Dialect,
		state: plan.StateIn(firstNonEmpty(tgt.StateSchema, tgt.Schema))}, nil
}

func firstOr(names []string, def string) string {
	if len(names) > 0 {
		return names[0]
	}
	return def
}
