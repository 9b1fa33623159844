// Package compiler turns a project into a Plan: load → render → analyse →
// graph → plan. It is pure: it reads files and never opens a connection; what
// it needs to know about the warehouse (which partitions succeeded, which
// tables exist) comes through the State interface.
package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/dag"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/compiler/selector"
	"github.com/idemc/idemc/compiler/suggest"
)

// State is what the planner needs to know about the warehouse. The runner
// backs it with the audit table (one bulk read per run, not per unit);
// `idemc compile` uses NoState.
type State interface {
	// Exists reports whether a relation exists (for is_incremental() and
	// for "up to date", which needs the destination).
	Exists(r adapters.Relation) bool
	// Latest returns a unit's latest attempt, whatever its status.
	Latest(model, partition string) (Attempt, bool)
	// Keys lists the partition keys a model has audit rows for.
	Keys(model string) []string
	// Empty reports whether a table is known to hold no rows (emptied
	// outside idemc, when its audit rows say rows were written).
	Empty(r adapters.Relation) bool
	// HighWater returns a watermark model's stored mark.
	HighWater(model string) (string, bool)
}

// Attempt is what the planner reads of a unit's latest audit row.
type Attempt struct {
	RunID       string
	Status      string // running, succeeded, failed, abandoned
	Inputs      string // the input fingerprint it ran with
	DataVersion string // the data version its write left
	RowCount    int64  // rows it wrote; -1 when unknown
}

// NoState is the state of a plan printed without a connection: every
// destination is assumed to exist and nothing to have run yet.
type NoState struct{}

// Exists is always true, so compile shows the steady-state (incremental) SQL.
func (NoState) Exists(adapters.Relation) bool { return true }

// Latest is never known.
func (NoState) Latest(string, string) (Attempt, bool) { return Attempt{}, false }

// Keys is always empty.
func (NoState) Keys(string) []string { return nil }

// Empty is never known.
func (NoState) Empty(adapters.Relation) bool { return false }

// HighWater is never known.
func (NoState) HighWater(string) (string, bool) { return "", false }

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
	// Models includes model units (false for idemc seed).
	Models bool
	// RunID and GitCommit fill the audit rows of the recipes.
	RunID, GitCommit string
	// LintOnly leaves error findings in Plan.Findings instead of failing.
	LintOnly bool
	// Units, when not nil, plans exactly these unit ids ("model" or
	// "model/partition"), forced (idemc retry and verify).
	Units []string
	// Workers bounds render/analysis concurrency (default GOMAXPROCS).
	Workers int
	// ResumeFrom, for idemc retry, is the run id of the run being finished:
	// a forced unit whose latest attempt succeeded in it or later (run ids
	// are time-ordered) is done and does not run again.
	ResumeFrom string
	// KeepVersions (verify): a unit rerun with the inputs of its latest
	// success keeps that success's data version, so that readers need not
	// run again (verify proves the rerun left the same rows).
	KeepVersions bool
}

// Error returned when compilation fails is a diag.List (exit code 2).

// compiled is one model after render and analysis.
type compiled struct {
	m        *project.Model
	cfg      *project.ModelConfig
	tpl      *render.Rendered
	res      analyze.Result
	rel      adapters.Relation
	strategy string
	gran     string
	start    time.Time // first partition
	checks   []*adapters.Check
	extraUp  []string // upstream models named by checks (order only)
	dataUp   []string // refs and the seeds loading the sources it reads
	// resolved names the relation each ref() and source() of its SQL
	// resolves to: the code hash names refs by model, but a model or
	// seed moved to another schema changes what the SQL reads.
	resolved []string
	hash     string
	external bool // reads a source that no seed loads: its data can change unseen
}

// Compile builds the plan. On bad input the error is a diag.List; lint
// warnings and notes are returned in Plan.Findings either way.
func Compile(p *project.Project, opts Options) (*Plan, error) {
	if opts.State == nil {
		opts.State = NoState{}
	}
	if opts.AsOf.IsZero() {
		opts.AsOf = time.Now().UTC()
	}
	opts.AsOf = opts.AsOf.UTC()
	var errs diag.List
	tname := opts.Target
	if tname == "" {
		tname = p.DefaultTarget
	}
	tgt, ok := p.Targets[tname]
	if !ok {
		hint := ""
		if s := suggest.Closest(tname, sortedNames(p.Targets)); s != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", s)
		}
		return nil, diag.List{diag.Errorf(project.FileName, 0, 0, "target %q is not declared%s: add [targets.%s] or use one of %s", tname, hint, tname, strings.Join(sortedNames(p.Targets), ", "))}
	}
	if tgt.SchemaErr != nil {
		return nil, diag.List{tgt.SchemaErr.(*diag.Error)}
	}
	ad, ok := adapters.Lookup(tgt.Engine)
	if !ok {
		return nil, diag.List{diag.Errorf(project.FileName, tgt.Line, 0, "target %q: engine %q is not in this build of idemc (it has %s)", tname, tgt.Engine, strings.Join(adapters.Names(), ", "))}
	}
	d := ad.Dialect
	state := adapters.StateIn(firstNonEmpty(tgt.StateSchema, tgt.Schema))

	plan := &Plan{Project: p.Name, Target: tname, Engine: tgt.Engine, AsOf: opts.AsOf, Nodes: map[string]*Node{}, Graph: dag.New()}
	seedSchema := firstNonEmpty(p.SeedSchema, tgt.Schema)
	for _, s := range p.Seeds {
		plan.Nodes[s.Name] = &Node{Name: s.Name, Path: s.Path, Seed: true, Relation: adapters.Relation{Schema: seedSchema, Name: s.Name}}
		plan.Graph.Add(s.Name)
	}
	models := map[string]*compiled{}
	list := make([]*compiled, len(p.Models))
	for i, m := range p.Models {
		c := &compiled{m: m, cfg: &m.Config}
		c.rel = adapters.Relation{Schema: firstNonEmpty(m.Config.Schema, tgt.Schema), Name: firstNonEmpty(m.Config.Alias, m.Name)}
		list[i] = c
		models[m.Name] = c
		plan.Graph.Add(m.Name)
	}
	for _, c := range list {
		validateModel(c, &errs)
	}
	names := make([]string, 0, len(plan.Nodes)+len(models))
	for n := range plan.Nodes {
		names = append(names, n)
	}
	for n := range models {
		names = append(names, n)
	}
	sort.Strings(names)

	// Render and analyse every model, in parallel.
	env, err := render.NewEnv(macroFiles(p), p.Vars)
	if err != nil {
		errs.Append(asDiag(err))
		return nil, errs.Err()
	}
	analysisDialect := d
	rctx := &render.Context{
		Known:       func(n string) bool { _, m := models[n]; _, s := plan.Nodes[n]; return m || s },
		KnownSource: func(src, table string) bool { return p.Sources[src] != nil && contains(p.Sources[src].Tables, table) },
		Literal:     func(v any) string { return literal(analysisDialect, v) },
		SuggestRef:  func(n string) string { return suggest.Closest(n, names) },
		Vars:        opts.Vars,
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan *compiled)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parser := analyze.NewParser()
			for c := range next {
				if err := renderAndAnalyse(env, parser, rctx, c, opts, d); err != nil {
					mu.Lock()
					errs.Append(asDiag(err))
					mu.Unlock()
				}
			}
		}()
	}
	for _, c := range list {
		next <- c
	}
	close(next)
	wg.Wait()
	checkNames(p, tgt, d, list, &errs)
	if len(errs) > 0 {
		return nil, errs.Err()
	}

	// Graph, checks and findings. A source read from a table that a seed
	// loads depends on that seed, so builds load seeds first.
	seedAt := map[adapters.Relation]string{}
	for n, node := range plan.Nodes {
		if node.Seed {
			seedAt[node.Relation] = n
		}
	}
	exprParser := analyze.NewParser()
	for _, c := range list {
		for _, r := range c.tpl.Refs {
			plan.Graph.Connect(r, c.m.Name)
			c.dataUp = append(c.dataUp, r)
			rel := adapters.Relation{}
			if m := models[r]; m != nil {
				rel = m.rel
			} else if n := plan.Nodes[r]; n != nil {
				rel = n.Relation
			}
			c.resolved = append(c.resolved, r+"@"+rel.Database+"."+rel.Schema+"."+rel.Name)
		}
		for _, s := range c.tpl.Sources {
			src := p.Sources[s[0]]
			c.resolved = append(c.resolved, s[0]+"."+s[1]+"@"+src.Database+"."+src.Schema+"."+s[1])
			if seed, ok := seedAt[adapters.Relation{Database: src.Database, Schema: src.Schema, Name: s[1]}]; ok {
				plan.Graph.Connect(seed, c.m.Name)
				c.dataUp = append(c.dataUp, seed)
			} else {
				c.external = true
			}
		}
		c.checks = buildChecks(c, p, plan.Nodes, models, exprParser, &errs)
		for _, u := range c.extraUp {
			if u != c.m.Name {
				plan.Graph.Connect(u, c.m.Name)
			}
		}
		for _, f := range c.res.Findings {
			plan.Findings = append(plan.Findings, f)
			if f.Severity == analyze.Error && !opts.LintOnly {
				errs.Add(f.Path, f.Line, f.Col, "%s %s", f.Rule, f.Message)
			}
		}
	}
	sort.SliceStable(plan.Findings, func(i, j int) bool {
		a, b := plan.Findings[i], plan.Findings[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	order, err := plan.Graph.TopoOrder()
	if err != nil {
		for _, cyc := range plan.Graph.Cycles() {
			path := ""
			if c := models[cyc.Cycle[0]]; c != nil {
				path = c.m.Path
			}
			errs.Add(path, 0, 0, "%s", cycleMessage(cyc.Cycle, models))
		}
		return plan, errs.Err()
	}
	if len(errs) > 0 {
		return plan, errs.Err()
	}

	// Nodes for selection and for the runner.
	sel := make([]selector.Node, 0, len(names))
	for _, n := range order {
		if c := models[n]; c != nil {
			node := &Node{Name: n, Path: c.m.Path, Relation: c.rel, Materialized: c.cfg.Materialized, Strategy: c.strategy,
				Tags: c.cfg.Tags, PartitionBy: c.cfg.PartitionBy, Granularity: c.gran, OnSchemaChange: c.cfg.OnSchemaChange, CodeHash: c.hash, Checks: c.checks, Columns: c.res.Columns}
			if !c.res.Parsed || c.res.Star {
				node.Columns = nil
			}
			plan.Nodes[n] = node
		}
		node := plan.Nodes[n]
		sel = append(sel, selector.Node{Name: n, Path: node.Path, Tags: node.Tags})
	}
	chosen, err := selector.Select(sel, plan.Graph, opts.Select, opts.Exclude)
	if err != nil {
		return plan, diag.List{diag.Errorf("", 0, 0, "%v", err)}
	}
	isChosen := map[string]bool{}
	for _, n := range chosen {
		isChosen[n] = true
	}
	for _, n := range order {
		if isChosen[n] {
			plan.Selected = append(plan.Selected, n)
		}
	}

	// Units: what is stale in the selection, given the audit state.
	var window *explicitWindow
	if opts.Partition != "" || opts.Start != "" || opts.End != "" {
		window = &explicitWindow{partition: opts.Partition, start: opts.Start, end: opts.End}
	}
	// A selected model needs its upstream relations: any ancestor that does
	// not exist in the target yet (a fresh warehouse) is built too, seeds
	// included, so `build --select events_daily` works on a fresh machine.
	if opts.Models && opts.Units == nil {
		added := map[string]bool{}
		for _, n := range plan.Selected {
			for _, a := range plan.Graph.Ancestors(n) {
				node := plan.Nodes[a]
				if isChosen[a] || added[a] || (models[a] != nil && models[a].cfg.Materialized == adapters.Ephemeral) {
					continue
				}
				if !opts.State.Exists(node.Relation) {
					added[a] = true
				}
			}
		}
		if len(added) > 0 {
			for a := range added {
				isChosen[a] = true
			}
			plan.Selected = plan.Selected[:0]
			for _, n := range order {
				if isChosen[n] {
					plan.Selected = append(plan.Selected, n)
				}
			}
			opts.Seeds = opts.Seeds || anySeed(plan, added)
		}
	}
	pl := &planner{plan: plan, models: models, opts: opts, window: window, chosen: isChosen, d: d, p: p, state: state, target: tname,
		unitsOf: map[string][]*Unit{}, vers: newVersions()}
	plan.UnitGraph = dag.New()
	for _, n := range order {
		if err := pl.model(n); err != nil {
			errs.Append(err)
		}
	}
	fillSQL(plan, workers, d, opts, models, p)
	for _, n := range plan.Selected {
		if node := plan.Nodes[n]; !node.Seed && node.SQL == "" && models[n].cfg.Materialized != adapters.Ephemeral {
			node.SQL = models[n].expand(d, nil, opts, models, plan.Nodes, p)
		}
	}
	for _, f := range p.Tests {
		t, err := compileTest(env, rctx, f, d, opts, models, plan.Nodes, p)
		if err != nil {
			errs.Append(asDiag(err))
			continue
		}
		plan.Tests = append(plan.Tests, t)
	}
	return plan, errs.Err()
}

// compileTest renders one tests/*.sql file for the target.
func compileTest(env *render.Env, rctx *render.Context, f project.File, d adapters.Dialect, opts Options, models map[string]*compiled, nodes map[string]*Node, p *project.Project) (*SingularTest, error) {
	tpl, err := env.Parse(f.Path, f.Text)
	if err != nil {
		return nil, err
	}
	r, err := env.Render(tpl, f.Text, rctx)
	if err != nil {
		return nil, err
	}
	c := &compiled{m: &project.Model{Name: f.Path, Path: f.Path}, cfg: &project.ModelConfig{}, tpl: r}
	return &SingularTest{Path: f.Path, SQL: c.expand(d, nil, opts, models, nodes, p), Refs: r.Refs}, nil
}

func anySeed(plan *Plan, names map[string]bool) bool {
	for n := range names {
		if plan.Nodes[n].Seed {
			return true
		}
	}
	return false
}

type explicitWindow struct{ partition, start, end string }

func buildUnit(c *compiled, w *adapters.Window, opts Options, d adapters.Dialect, models map[string]*compiled, nodes map[string]*Node, p *project.Project, state adapters.State, target string) *Unit {
	part := ""
	if w != nil {
		part = w.Key
	}
	wr := &adapters.Write{
		Model: c.m.Name, Materialized: c.cfg.Materialized, Strategy: c.strategy, Target: c.rel,
		PartitionBy: c.cfg.PartitionBy, Window: w,
		UniqueKey: c.cfg.UniqueKey, UpdateColumns: c.cfg.MergeUpdateColumns, ExcludeColumns: c.cfg.MergeExcludeColumns,
		Checks: c.checks, FullRefresh: opts.FullRefresh, State: state,
	}
	if c.res.Parsed && !c.res.Star && c.res.Columns != nil && !hasEmpty(c.res.Columns) {
		wr.Columns = c.res.Columns
	}
	if c.cfg.Watermark != nil {
		wr.Watermark = &adapters.WatermarkWrite{Column: c.cfg.Watermark.Column}
	}
	if opts.RunID != "" {
		wr.Audit = &adapters.AuditRow{RunID: opts.RunID, Job: c.m.Name, Partition: part, CodeHash: c.hash, GitCommit: opts.GitCommit, Target: target, AsOf: opts.AsOf}
	}
	if c.cfg.Materialized == adapters.View || c.cfg.Materialized == adapters.Table {
		wr.Strategy = ""
	}
	// The SQL (Select and Steps) is filled by fillSQL, in parallel.
	return &Unit{ID: UnitID(c.m.Name, part), Model: c.m.Name, Partition: part, Write: wr, CodeHash: c.hash, from: c}
}

// fillSQL renders every unit's SELECT and recipe, spread over the workers:
// after planning, units are independent.
func fillSQL(plan *Plan, workers int, d adapters.Dialect, opts Options, models map[string]*compiled, p *project.Project) {
	var wg sync.WaitGroup
	next := make(chan *Unit, len(plan.Units))
	for _, u := range plan.Units {
		if u.from != nil {
			next <- u
		}
	}
	close(next)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for u := range next {
				u.Write.Select = u.from.expand(d, u.Write.Window, opts, models, plan.Nodes, p)
				u.Steps = d.Recipe(u.Write)
			}
		}()
	}
	wg.Wait()
	for _, u := range plan.Units {
		if u.from != nil {
			plan.Nodes[u.Model].SQL = u.Write.Select
		}
	}
}

func hasEmpty(cols []string) bool {
	for _, c := range cols {
		if c == "" {
			return true
		}
	}
	return false
}

// expand renders the model's SQL for the target and one window, inlining
// ephemeral models as CTEs.
func (c *compiled) expand(d adapters.Dialect, w *adapters.Window, opts Options, models map[string]*compiled, nodes map[string]*Node, p *project.Project) string {
	var ctes []string
	seen := map[string]bool{}
	body := c.expandInto(d, w, opts, models, nodes, p, &ctes, seen)
	if len(ctes) == 0 {
		return body
	}
	return withCTEs(body, ctes)
}

func (c *compiled) expandInto(d adapters.Dialect, w *adapters.Window, opts Options, models map[string]*compiled, nodes map[string]*Node, p *project.Project, ctes *[]string, seen map[string]bool) string {
	gran := c.gran
	if gran == "" {
		gran = "day"
	}
	var start, end time.Time
	if w != nil {
		start, end = w.Start, w.End
	} else {
		start, end = c.start, opts.AsOf
		if start.IsZero() {
			start = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
		}
	}
	sql := c.tpl.Expand(func(s *render.Slot) string {
		switch s.Kind {
		case render.Ref:
			if e := models[s.A]; e != nil && e.cfg.Materialized == adapters.Ephemeral {
				// A long model name would make a CTE name the engine cuts
				// (two ephemerals sharing a prefix would collide).
				name := sqlgen.Derive(d.IdentLimit(), d.IdentLimit().Name, "__idemc_eph_"+s.A, "")
				if !seen[s.A] {
					seen[s.A] = true
					inner := e.expandInto(d, w, opts, models, nodes, p, ctes, seen)
					*ctes = append(*ctes, d.Quote(name)+" AS (\n"+inner+"\n)")
				}
				return d.Quote(name)
			}
			if e := models[s.A]; e != nil {
				return d.Qualify(e.rel)
			}
			return d.Qualify(nodes[s.A].Relation)
		case render.Source:
			src := p.Sources[s.A]
			return d.Qualify(adapters.Relation{Database: src.Database, Schema: src.Schema, Name: s.B})
		case render.Start:
			return d.WindowLiteral(start, gran)
		case render.End:
			return d.WindowLiteral(end, gran)
		case render.Partition:
			return d.WindowLiteral(start, gran)
		case render.AsOf:
			return d.Timestamp(opts.AsOf)
		case render.SurrogateKey:
			return d.SurrogateKey(s.Exprs)
		case render.This:
			return d.Qualify(c.rel)
		case render.WatermarkStart:
			return c.watermarkStart(d, opts)
		case render.WatermarkEnd:
			return c.watermarkEnd(d, opts)
		}
		return ""
	})
	return trimSQL(sql)
}

// watermarkStart is the stored high-water mark minus overlap, or the
// beginning of time on the first run and on a full refresh.
func (c *compiled) watermarkStart(d adapters.Dialect, opts Options) string {
	wm := c.cfg.Watermark
	if wm == nil {
		return d.Timestamp(c.start)
	}
	mark, ok := opts.State.HighWater(c.m.Name)
	if opts.FullRefresh {
		ok = false
	}
	if wm.Kind == "sequence" {
		if !ok {
			return "0"
		}
		if _, err := strconv.ParseFloat(mark, 64); err != nil {
			return "0"
		}
		return mark
	}
	if !ok {
		return d.Timestamp(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))
	}
	t, err := partition.ParseTime(strings.Replace(strings.TrimSuffix(mark, "+00"), " ", "T", 1))
	if err != nil {
		if t2, err2 := time.Parse("2006-01-02 15:04:05.999999999", mark); err2 == nil {
			t = t2
		} else {
			return d.Timestamp(time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC))
		}
	}
	if wm.Overlap != "" {
		ov, _ := time.ParseDuration(wm.Overlap)
		t = t.Add(-ov)
	}
	return d.Timestamp(t)
}

// watermarkEnd is as_of minus lag: rows newer than that may still be arriving.
func (c *compiled) watermarkEnd(d adapters.Dialect, opts Options) string {
	wm := c.cfg.Watermark
	if wm != nil && wm.Kind == "sequence" {
		return "9223372036854775807"
	}
	end := opts.AsOf
	if wm != nil && wm.Lag != "" {
		lag, _ := time.ParseDuration(wm.Lag)
		end = end.Add(-lag)
	}
	return d.Timestamp(end)
}

// withCTEs puts ephemeral models' CTEs in front of a query, joining an
// existing WITH clause.
func withCTEs(body string, ctes []string) string {
	i := skipSpaceAndComments(body, 0)
	rest := body[i:]
	list := strings.Join(ctes, ",\n")
	if hasWord(rest, "with") {
		after := rest[4:]
		j := skipSpaceAndComments(after, 0)
		if hasWord(after[j:], "recursive") {
			return body[:i] + "WITH RECURSIVE " + list + ",\n" + after[j+9:]
		}
		return body[:i] + "WITH " + list + ",\n" + after
	}
	return body[:i] + "WITH " + list + "\n" + rest
}

func hasWord(s, w string) bool {
	if len(s) < len(w) || !strings.EqualFold(s[:len(w)], w) {
		return false
	}
	return len(s) == len(w) || !isIdent(s[len(w)])
}

func isIdent(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func skipSpaceAndComments(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r':
			i++
		case strings.HasPrefix(s[i:], "--"):
			j := strings.IndexByte(s[i:], '\n')
			if j < 0 {
				return len(s)
			}
			i += j + 1
		case strings.HasPrefix(s[i:], "/*"):
			j := strings.Index(s[i+2:], "*/")
			if j < 0 {
				return len(s)
			}
			i += j + 4
		default:
			return i
		}
	}
	return i
}

// trimSQL removes the blank header lines, surrounding space and a trailing
// semicolon, so the SELECT can be wrapped.
func trimSQL(s string) string {
	s = strings.TrimSpace(s)
	for strings.HasSuffix(s, ";") {
		s = strings.TrimSpace(strings.TrimSuffix(s, ";"))
	}
	return s
}

// renderAndAnalyse renders one model and runs the lint rules on the
// analysis rendering.
func renderAndAnalyse(env *render.Env, parser *analyze.Parser, base *render.Context, c *compiled, opts Options, d adapters.Dialect) error {
	tpl, err := env.Parse(c.m.Path, c.m.Body)
	if err != nil {
		return err
	}
	rc := *base
	rc.IsIncremental = c.cfg.Materialized == adapters.Incremental && !opts.FullRefresh && opts.State.Exists(c.rel)
	r, err := env.Render(tpl, c.m.Body, &rc)
	if err != nil {
		return err
	}
	c.tpl = r
	start := c.start
	if start.IsZero() {
		start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	gran := c.gran
	if gran == "" {
		gran = "day"
	}
	lit := func(t time.Time) string {
		if gran == "hour" {
			return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
		}
		return "DATE '" + t.Format("2006-01-02") + "'"
	}
	sql := r.Expand(func(s *render.Slot) string {
		switch s.Kind {
		case render.Ref:
			return s.A
		case render.Source:
			return s.A + "." + s.B
		case render.Start, render.Partition:
			return lit(start)
		case render.End:
			return lit(partition.Next(start, gran))
		case render.AsOf, render.WatermarkStart, render.WatermarkEnd:
			return "TIMESTAMP '2026-01-01 00:00:00'"
		case render.SurrogateKey:
			return "md5(concat_ws('|', " + strings.Join(s.Exprs, ", ") + "))"
		case render.This:
			return c.m.Name
		}
		return ""
	})
	allow := make([]string, len(c.cfg.AllowNondeterministic))
	for i, a := range c.cfg.AllowNondeterministic {
		allow[i] = strings.ToLower(a)
	}
	c.res = parser.Analyze(analyze.Input{
		Path: c.m.Path, SQL: sql, Materialized: c.cfg.Materialized, Strategy: c.strategy,
		PartitionBy: c.cfg.PartitionBy, UniqueKey: c.cfg.UniqueKey, AllowAppend: c.cfg.AllowAppend,
		AllowNondeterministic: allow, StrictParse: c.cfg.StrictParse, UsesWindow: r.UsesWindow,
		Line: c.m.BodyLine, Col: 1,
	})
	// The code hash covers the SQL (with window markers, not dates) and
	// every setting that changes what is written.
	h := sha256.New()
	h.Write([]byte(r.Expand(func(s *render.Slot) string {
		switch s.Kind {
		case render.Start, render.End, render.Partition, render.AsOf, render.WatermarkStart, render.WatermarkEnd:
			return "<" + strconv.Itoa(int(s.Kind)) + ">"
		case render.SurrogateKey:
			return d.SurrogateKey(s.Exprs)
		}
		return s.A + "." + s.B
	})))
	fmt.Fprintf(h, "\x00%s|%s|%s|%s|%v|%v|%v|%v|%s", c.cfg.Materialized, c.strategy, c.cfg.PartitionBy, c.gran, c.cfg.UniqueKey, c.cfg.MergeUpdateColumns, c.cfg.MergeExcludeColumns, c.cfg.Watermark, d.Name())
	keys := make([]string, 0, len(c.cfg.Checks))
	for k := range c.cfg.Checks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(h, "|%s=%v", k, c.cfg.Checks[k].Value)
	}
	c.hash = hex.EncodeToString(h.Sum(nil))[:16]
	return nil
}

// validateModel checks settings that depend on each other and fills defaults.
func validateModel(c *compiled, errs *diag.List) {
	cfg := c.cfg
	at := func(key string) (string, int) {
		if p, ok := c.m.HeaderLine[key]; ok {
			return p.Path, p.Line
		}
		return c.m.Path, 1
	}
	bad := func(key, format string, args ...any) {
		path, line := at(key)
		errs.Add(path, line, 0, format, args...)
	}
	c.gran = cfg.Granularity
	if cfg.Materialized != adapters.Incremental {
		for _, k := range []string{"strategy", "partition_by", "watermark", "lookback"} {
			if _, set := c.m.HeaderLine[k]; set {
				bad(k, "%s applies only to incremental models; add materialized = \"incremental\" or remove %s", k, k)
			}
		}
		return
	}
	if cfg.PartitionBy != "" && c.gran == "" {
		c.gran = "day"
	}
	if cfg.PartitionBy != "" {
		if cfg.Start == "" {
			bad("partition_by", "partitioned model needs start = \"2026-07-01\" (its first partition)")
		} else if t, err := partition.ParseTime(cfg.Start); err == nil {
			c.start = partition.Truncate(t, c.gran)
		}
	}
	c.strategy = cfg.Strategy
	if c.strategy == "" {
		switch {
		case cfg.PartitionBy != "":
			c.strategy = "delete_insert"
		case len(cfg.UniqueKey) > 0:
			c.strategy = "merge"
		default:
			bad("materialized", "incremental model needs partition_by or unique_key to know what a rerun replaces (or strategy = \"append\" with allow_append = true)")
		}
	}
	switch c.strategy {
	case "merge":
		if len(cfg.UniqueKey) == 0 {
			bad("strategy", "strategy = \"merge\" needs unique_key = [\"...\"]")
		}
	case "insert_overwrite":
		if cfg.PartitionBy == "" {
			bad("strategy", "strategy = \"insert_overwrite\" needs partition_by")
		}
	case "delete_insert":
		if cfg.PartitionBy == "" && len(cfg.UniqueKey) == 0 {
			bad("strategy", "strategy = \"delete_insert\" needs partition_by or unique_key")
		}
	}
	if cfg.Watermark != nil && cfg.PartitionBy != "" {
		bad("watermark", "watermark is for unpartitioned models; a partitioned model reads its window through start and end")
	}
	if len(cfg.MergeUpdateColumns) > 0 && len(cfg.MergeExcludeColumns) > 0 {
		bad("merge_update_columns", "set merge_update_columns or merge_exclude_columns, not both")
	}
}

// buildChecks turns the [checks] table into checks, positioned errors for
// bad values, and upstream models the checks read.
func buildChecks(c *compiled, p *project.Project, seeds map[string]*Node, models map[string]*compiled, parser *analyze.Parser, errs *diag.List) []*adapters.Check {
	var out []*adapters.Check
	keys := make([]string, 0, len(c.cfg.Checks))
	for k := range c.cfg.Checks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	at := func(kind string) (string, int) {
		if pos, ok := c.m.HeaderLine["checks."+kind]; ok {
			return pos.Path, pos.Line
		}
		return c.m.Path, 1
	}
	relationOf := func(kind, name string) (adapters.Relation, bool) {
		if m := models[name]; m != nil {
			c.extraUp = append(c.extraUp, name)
			return m.rel, true
		}
		if s := seeds[name]; s != nil && s.Seed {
			c.extraUp = append(c.extraUp, name)
			return s.Relation, true
		}
		if i := strings.IndexByte(name, '.'); i > 0 {
			if src := p.Sources[name[:i]]; src != nil && contains(src.Tables, name[i+1:]) {
				return adapters.Relation{Database: src.Database, Schema: src.Schema, Name: name[i+1:]}, true
			}
		}
		path, line := at(kind)
		errs.Add(path, line, 0, "checks.%s: %q is neither a model, a seed nor a declared source table (source.table)", kind, name)
		return adapters.Relation{}, false
	}
	for _, kind := range keys {
		raw := c.cfg.Checks[kind].Value
		sev := "error"
		val := raw
		path, line := at(kind)
		if m, ok := raw.(map[string]any); ok {
			if s, ok := m["severity"]; ok {
				sev = fmt.Sprint(s)
				if sev != "error" && sev != "warn" {
					errs.Add(path, line, 0, "checks.%s: severity %q is not valid; use \"error\" or \"warn\"", kind, sev)
				}
				cp := map[string]any{}
				for k, v := range m {
					if k != "severity" {
						cp[k] = v
					}
				}
				val = cp
				if v, ok := cp["value"]; ok {
					val = v
				} else if v, ok := cp["columns"]; ok {
					val = v
				}
			}
		}
		switch kind {
		case "unique", "not_null":
			cols, ok := stringList(val)
			if !ok || len(cols) == 0 {
				errs.Add(path, line, 0, "checks.%s must be a list of columns: %s = [\"a\", \"b\"]", kind, kind)
				continue
			}
			out = append(out, &adapters.Check{Name: kind + "(" + strings.Join(cols, ", ") + ")", Kind: kind, Severity: sev, Columns: cols})
		case "accepted_values":
			m, ok := val.(map[string]any)
			if !ok || len(m) == 0 {
				errs.Add(path, line, 0, "checks.accepted_values must be a table: accepted_values = { status = [\"ok\", \"void\"] }")
				continue
			}
			for _, col := range sortedKeys(m) {
				vals, ok := stringList(m[col])
				if !ok {
					errs.Add(path, line, 0, "checks.accepted_values.%s must be a list of values", col)
					continue
				}
				out = append(out, &adapters.Check{Name: "accepted_values(" + col + ")", Kind: kind, Severity: sev, Columns: []string{col}, Values: vals})
			}
		case "relationships":
			m, ok := val.(map[string]any)
			if !ok || len(m) == 0 {
				errs.Add(path, line, 0, "checks.relationships must be a table: relationships = { user_id = \"dim_users.user_id\" }")
				continue
			}
			for _, col := range sortedKeys(m) {
				ref, _ := m[col].(string)
				i := strings.LastIndexByte(ref, '.')
				if i <= 0 {
					errs.Add(path, line, 0, "checks.relationships.%s must name model.column, e.g. \"dim_users.user_id\"", col)
					continue
				}
				rel, ok := relationOf(kind, ref[:i])
				if !ok {
					continue
				}
				out = append(out, &adapters.Check{Name: "relationships(" + col + " -> " + ref + ")", Kind: kind, Severity: sev, Columns: []string{col}, To: rel, ToColumn: ref[i+1:]})
			}
		case "row_count_matches":
			m, ok := val.(map[string]any)
			src, _ := m["source"].(string)
			col, _ := m["column"].(string)
			if !ok || src == "" {
				errs.Add(path, line, 0, "checks.row_count_matches needs a source: row_count_matches = { source = \"raw.staging_events\", column = \"event_date\" }")
				continue
			}
			if col == "" {
				col = c.cfg.PartitionBy
			}
			rel, ok := relationOf(kind, src)
			if !ok {
				continue
			}
			out = append(out, &adapters.Check{Name: "row_count_matches(" + src + ")", Kind: kind, Severity: sev, Source: rel, SourceColumn: col})
		case "min_rows":
			n, ok := val.(int64)
			if !ok || n < 0 {
				errs.Add(path, line, 0, "checks.min_rows must be a whole number: min_rows = 1 or min_rows = { value = 1, severity = \"warn\" }")
				continue
			}
			out = append(out, &adapters.Check{Name: "min_rows(" + strconv.FormatInt(n, 10) + ")", Kind: kind, Severity: sev, MinRows: n})
		case "expect":
			exprs, ok := stringList(val)
			if !ok || len(exprs) == 0 {
				errs.Add(path, line, 0, "checks.expect must be a list of boolean aggregate expressions: expect = [\"sum(amount) >= 0\"]")
				continue
			}
			for i, e := range exprs {
				// Pasted into the check query as is: it must stay one
				// expression there (no second statement, on any engine).
				if err := parser.CheckExpr(e); err != nil {
					errs.Add(path, line, 0, "checks.expect[%d]: %q is not one SQL expression: %v", i+1, e, err)
					continue
				}
				out = append(out, &adapters.Check{Name: "expect(" + e + ")", Kind: kind, Severity: sev, Expr: e})
			}
		}
	}
	return out
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// literal renders a --vars or [vars] value as a SQL literal.
func literal(d adapters.Dialect, v any) string {
	switch x := v.(type) {
	case string:
		return d.String(x)
	case bool:
		if x {
			return "TRUE"
		}
		return "FALSE"
	case int64:
		return strconv.FormatInt(x, 10)
	case int:
		return strconv.Itoa(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case time.Time:
		return d.Timestamp(x)
	case nil:
		return "NULL"
	}
	return d.String(fmt.Sprint(v))
}

func macroFiles(p *project.Project) []render.File {
	out := make([]render.File, len(p.Macros))
	for i, m := range p.Macros {
		out[i] = render.File{Path: m.Path, Text: m.Text}
	}
	return out
}

// asDiag converts render errors (possibly joined) into positioned errors.
func asDiag(err error) error {
	var out diag.List
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		if re, ok := e.(*render.Error); ok {
			out.Add(re.Path, re.Line, re.Col, "%s", re.Msg)
			return
		}
		out.Append(e)
	}
	walk(err)
	return out
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func sortedNames[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys(m map[string]any) []string { return sortedNames(m) }
