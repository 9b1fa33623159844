package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/compiler/render"
	"github.com/idemc/idemc/compiler/suggest"
	"github.com/idemc/idemc/plan"
)

// renderAll renders and analyses every model, in parallel, then refuses
// the names the engine would cut. The error lists every problem so far.
func (cc *compilation) renderAll() error {
	p := cc.p
	env, err := render.NewEnv(macroFiles(p), p.Vars)
	if err != nil {
		cc.errs.Append(asDiag(err))
		return cc.errs.Err()
	}
	cc.env = env
	d := cc.d
	cc.rctx = &render.Context{
		Known:       func(n string) bool { _, m := cc.models[n]; _, s := cc.plan.Nodes[n]; return m || s },
		KnownSource: func(src, table string) bool { return p.Sources[src] != nil && contains(p.Sources[src].Tables, table) },
		Literal:     func(v any) string { return literal(d, v) },
		SuggestRef:  func(n string) string { return suggest.Closest(n, cc.names) },
		Vars:        cc.opts.Vars,
		RawVars:     p.RawVars,
		Target:      cc.targetObject(),
		Project:     p.Name,
		Getenv:      os.LookupEnv,
		Log:         cc.opts.Log,
	}
	cc.workers = cc.opts.Workers
	if cc.workers <= 0 {
		cc.workers = runtime.GOMAXPROCS(0)
	}
	cc.cache = cc.openCache()
	var mu sync.Mutex
	var wg sync.WaitGroup
	var next atomic.Int64 // the models taken by index: no goroutine hands them out
	for w := 0; w < cc.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parser := analyze.NewParser() // one per goroutine: it is not safe for concurrent use
			for i := next.Add(1) - 1; i < int64(len(cc.list)); i = next.Add(1) - 1 {
				if err := cc.renderAndAnalyse(parser, cc.list[i]); err != nil {
					mu.Lock()
					cc.errs.Append(asDiag(err))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if k := cc.cache; k != nil {
		// Written while the graph is connected and the units planned (it
		// was ~3 % of a fresh compile on one CPU); planning waits for it
		// before it returns.
		saved := make(chan struct{})
		go func() {
			defer close(saved)
			k.save(cc.opts.Cache)
		}()
		cc.saved = saved
		cc.keyEnv = k.env // what unit keys start from (unitKey)
		cc.cache = nil    // its entries are in the models now
	}
	cc.checkNames()
	return cc.errs.Err()
}

// renderAndAnalyse renders one model and runs the lint rules on the
// analysis rendering.
func (cc *compilation) renderAndAnalyse(parser *analyze.Parser, c *compiled) error {
	c.incremental = isIncremental(c, cc.opts)
	key := ""
	if cc.cache != nil {
		key = cc.cache.key(c)
		if cc.cache.get(cc, c, key) {
			cc.opts.Work.hit()
			return nil
		}
	}
	tpl, err := cc.env.Parse(c.m.Path, c.m.Body)
	if err != nil {
		return err
	}
	rc := *cc.rctx
	rc.IsIncremental = c.incremental
	rc.This = render.Relation{Database: c.rel.Database, Schema: c.rel.Schema, Identifier: c.rel.Name}
	r, err := cc.env.Render(tpl, c.m.Body, &rc)
	cc.opts.Work.rendered()
	if err != nil {
		return err
	}
	c.tpl = r
	allow := make([]string, len(c.cfg.AllowNondeterministic))
	for i, a := range c.cfg.AllowNondeterministic {
		allow[i] = strings.ToLower(a)
	}
	c.res = parser.Analyze(analyze.Input{
		Path: c.m.Path, SQL: analysisSQL(c, r), Materialized: c.cfg.Materialized, Strategy: c.strategy,
		PartitionBy: c.cfg.PartitionBy, UniqueKey: c.cfg.UniqueKey, AllowAppend: c.cfg.AllowAppend,
		AllowNondeterministic: allow, StrictParse: c.cfg.StrictParse, UsesWindow: r.UsesWindow, Lineage: cc.opts.Lineage,
		Line: c.m.BodyLine, Col: 1,
	})
	cc.opts.Work.analysed()
	for _, w := range r.Warnings {
		c.res.Findings = append(c.res.Findings, warnFinding(c, w))
	}
	alt, err := cc.renderOther(tpl, c, &rc, r)
	if err != nil {
		return err
	}
	if alt == nil {
		c.hash = codeHash(c, cc.d, r)
	} else if c.incremental {
		c.hash = codeHash(c, cc.d, alt, r)
	} else {
		c.hash = codeHash(c, cc.d, r, alt)
	}
	if cc.cache != nil {
		cc.cache.put(c, key, alt)
	}
	return nil
}

// renderOther renders an incremental model whose template calls
// is_incremental() once more, with the other answer, so that its code hash
// covers both renders: what it runs on a first build (or after a drop or
// with --full-refresh) and what it runs on top of its relation. The hash
// must not depend on the warehouse: it would change between the first
// build and the second, which would then rerun the model for nothing, and
// `idemc plan` would tell a different story from the build that follows.
// nil when one render is all there is (is_incremental() is not called, or
// is always false: a view or table). Both must render: a branch that fails
// is reported now, not on the build that first takes it.
func (cc *compilation) renderOther(tpl *render.Template, c *compiled, rc *render.Context, r *render.Rendered) (*render.Rendered, error) {
	if !r.UsesIncremental || c.cfg.Materialized != plan.Incremental {
		return nil, nil
	}
	other := *rc
	other.IsIncremental = !c.incremental
	other.Log = nil // log() reports the render that runs, once
	alt, err := cc.env.Render(tpl, c.m.Body, &other)
	cc.opts.Work.rendered()
	return alt, err
}

// isIncremental is what is_incremental() answers for c under opts: false
// also when the relation is a view, or a partitioned model's relation
// holds an unpartitioned write: the build replaces either (a changed kind,
// Write.Replace) before the model's SQL runs, which must not read
// {{ this }} then.
func isIncremental(c *compiled, opts Options) bool {
	return c.cfg.Materialized == plan.Incremental && !opts.FullRefresh && opts.State.Exists(c.rel) && !opts.State.IsView(c.rel) &&
		!(c.cfg.PartitionBy != "" && shapeChanged(opts.State, c.m.Name))
}

// Work counts what compiles did, so tests can prove work is not repeated
// (counts, unlike times, do not depend on the machine). Safe for
// concurrent use.
type Work struct {
	Renders  atomic.Int64 // templates rendered (models and tests)
	Analyses atomic.Int64 // models parsed and analysed
	Hits     atomic.Int64 // models read from the compile cache
}

func (w *Work) hit() {
	if w != nil {
		w.Hits.Add(1)
	}
}

func (w *Work) rendered() {
	if w != nil {
		w.Renders.Add(1)
	}
}

func (w *Work) analysed() {
	if w != nil {
		w.Analyses.Add(1)
	}
}

// analysisDate stands in for every date of the analysis rendering that a
// model does not set: the window of a model without a start, as_of and
// the watermarks. The lint rules read the SQL's shape, never its dates, so
// any valid date does; a fixed one keeps findings (and goldens) the same
// on every run, whatever the clock says.
const analysisDate = "2026-01-01"

// analysisTimestamp is analysisDate as the timestamp literal of as_of and
// the watermarks (a constant: most models render one).
const analysisTimestamp = "TIMESTAMP '" + analysisDate + " 00:00:00'"

func analysisTime() time.Time {
	t, _ := time.Parse(time.DateOnly, analysisDate)
	return t
}

// analysisLiteral is a date or timestamp literal the TiDB parser reads.
func analysisLiteral(t time.Time, gran string) string {
	if gran == "hour" {
		return "TIMESTAMP '" + t.Format("2006-01-02 15:04:05") + "'"
	}
	return "DATE '" + t.Format("2006-01-02") + "'"
}

// analysisSQL is the rendering the lint rules read: refs and sources by
// name, window bounds as literals, in the SQL the TiDB parser reads.
func analysisSQL(c *compiled, r *render.Rendered) string {
	start := c.start
	if start.IsZero() {
		start = analysisTime()
	}
	gran := c.gran
	if gran == "" {
		gran = "day"
	}
	return r.Expand(func(s *render.Slot) string {
		switch s.Kind {
		case render.Ref:
			return s.A
		case render.Source:
			return s.A + "." + s.B
		case render.Start, render.Partition:
			return analysisLiteral(start, gran)
		case render.End:
			return analysisLiteral(partition.Next(start, gran), gran)
		case render.AsOf, render.WatermarkStart, render.WatermarkEnd:
			return analysisTimestamp
		case render.SurrogateKey:
			return "md5(concat_ws('|', " + strings.Join(s.Exprs, ", ") + "))"
		case render.This:
			return c.m.Name
		case render.AsOfText:
			return s.Text(analysisTime())
		}
		return ""
	})
}

// codeHash covers the SQL (with window markers, not dates) and every
// setting that changes what is written. renders are the model's renders:
// one, or for a model calling is_incremental() the render where it is
// false, then the one where it is true (renderOther), whatever the
// warehouse holds. A model with one render hashes as it always has.
func codeHash(c *compiled, d adapters.Literals, renders ...*render.Rendered) string {
	h := sha256.New()
	for i, r := range renders {
		if i > 0 {
			h.Write([]byte("\x00is_incremental()\x00"))
		}
		h.Write([]byte(r.Expand(func(s *render.Slot) string {
			switch s.Kind {
			case render.Start, render.End, render.Partition, render.AsOf, render.WatermarkStart, render.WatermarkEnd:
				return "<" + strconv.Itoa(int(s.Kind)) + ">"
			case render.SurrogateKey:
				return d.SurrogateKey(s.Exprs)
			case render.AsOfText:
				return "<" + strconv.Itoa(int(s.Kind)) + ":" + s.A + ">"
			}
			return s.A + "." + s.B
		})))
	}
	fmt.Fprintf(h, "\x00%s|%s|%s|%s|%v|%v|%v|%v|%s", c.cfg.Materialized, c.strategy, c.cfg.PartitionBy, c.gran, c.cfg.UniqueKey, c.cfg.MergeUpdateColumns, c.cfg.MergeExcludeColumns, c.cfg.Watermark, d.Name())
	c.cfg.WriteChecks(h)
	if c.m.Lineage {
		// The flag, never the run id or as_of it writes: a lineage model is
		// stale when the columns come or go, not on every run.
		h.Write([]byte("\x00lineage_columns"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// literal renders a --vars or [vars] value as a SQL literal.
func literal(d adapters.Literals, v any) string {
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

// warnFinding is a template's exceptions.warn(msg) as a finding (J001).
func warnFinding(c *compiled, msg string) analyze.Finding {
	return analyze.Finding{Path: c.m.Path, Line: c.m.BodyLine, Col: 1, Rule: "J001", Severity: analyze.Warning, Message: msg}
}

// targetObject is the target templates see (dbt's target): the engine as
// type (MariaDB is "mysql", as dbt-mysql reports it), the database named by
// the target's settings.
func (cc *compilation) targetObject() *render.Target {
	return &render.Target{Name: cc.target, Type: cc.tgt.Engine, Schema: cc.tgt.Schema, Database: targetDatabase(cc.tgt), Profile: cc.p.Name, Threads: cc.p.ThreadsFor(cc.target)}
}

// targetDatabase is target.database: the setting that names the database
// (Snowflake database, BigQuery project, Spark catalog), the DuckDB file's
// name (as dbt-duckdb reports it), or the database of a PostgreSQL or MySQL
// DSN. A value still holding an unresolved ${VAR} is not shown: "".
func targetDatabase(t *project.Target) string {
	db := ""
	for _, k := range []string{"database", "project", "catalog"} {
		if v := t.Settings[k]; v != "" {
			db = v
			break
		}
	}
	if p := t.Settings["path"]; db == "" && p != "" && t.Engine == "duckdb" {
		db = strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
	}
	if dsn := t.Settings["dsn"]; db == "" && dsn != "" {
		db = dsnDatabase(dsn)
	}
	if strings.Contains(db, "${") {
		return ""
	}
	return db
}

// dsnDatabase is the database of a URL DSN (postgres://…/db?…), a keyword
// one (dbname=db) or a Go MySQL one (user:pass@tcp(host)/db?…).
func dsnDatabase(dsn string) string {
	for _, f := range strings.Fields(dsn) {
		if v, ok := strings.CutPrefix(f, "dbname="); ok {
			return v
		}
	}
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		return strings.TrimPrefix(u.Path, "/")
	}
	if i := strings.LastIndex(dsn, ")/"); i >= 0 {
		db, _, _ := strings.Cut(dsn[i+2:], "?")
		return db
	}
	return ""
}
