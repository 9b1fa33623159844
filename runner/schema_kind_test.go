package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/bigquery"
	bqdialect "github.com/idemc/idemc/adapters/bigquery/dialect"
	_ "github.com/idemc/idemc/adapters/snowflake" // registers the dialect
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/fakelocks"
	"github.com/idemc/idemc/plan"
)

// kindCatalog is a scripted Snowflake, BigQuery or Spark that keeps which
// relations exist and of which kind, and refuses what all three refuse
// across kinds: SWAP WITH a view, CREATE [OR REPLACE] of an object of the
// other kind, DROP VIEW of a table (and DROP TABLE of a view) even with IF
// EXISTS, ALTER VIEW of a table (and ALTER TABLE of a view), DML on a view.
// As BigQuery, it buffers a script (BEGIN … COMMIT TRANSACTION) and applies
// it whole at COMMIT, or fails it on a failing ASSERT. After crashAt
// statements every statement fails and changes nothing, as when the
// process is killed.
type kindCatalog struct {
	adapters.Engine
	mu      sync.Mutex
	engine  string            // snowflake, bigquery or spark
	rels    map[string]string // lower-case name (no schema) → table or view
	crashAt int               // 0: never
	n       int
	cols    []plan.Column
	failOn  string   // a check query (or ASSERT) containing it fails
	refuse  string   // a statement containing it fails (not a kill)
	script  []string // BigQuery: the buffered script, nil outside one
	ran     []string // every statement and query sent
	locks   fakelocks.Table
}

var errKilled = errors.New("the process was killed")

func (c *kindCatalog) Session(context.Context) (adapters.Session, error) { return c, nil }
func (c *kindCatalog) Close() error                                      { return nil }

var (
	// A name in the schema analytics: Snowflake's (quoted in upper case),
	// or BigQuery's and Spark's (backquoted); a rename's new name may be
	// unqualified (BigQuery's).
	identRe  = "(?:\"ANALYTICS\"\\.\"|`analytics`\\.`)([A-Za-z0-9_]+)[\"`]"
	stmtRes  = []*regexp.Regexp{regexp.MustCompile(`^(CREATE OR REPLACE VIEW|CREATE VIEW|CREATE OR REPLACE TABLE|CREATE TABLE IF NOT EXISTS|DROP VIEW IF EXISTS|DROP TABLE IF EXISTS|INSERT OVERWRITE INTO|INSERT OVERWRITE TABLE|INSERT INTO|DELETE FROM|TRUNCATE TABLE|MERGE INTO|ALTER TABLE|ALTER VIEW) (IF EXISTS )?` + identRe + `(.*)`)}
	renameRe = regexp.MustCompile("^ RENAME TO (?:\"ANALYTICS\"\\.|`analytics`\\.)?[\"`]([A-Za-z0-9_]+)[\"`]")
	swapRe   = regexp.MustCompile(`^ SWAP WITH ` + identRe)
)

// apply changes the catalog as the engine would, or refuses.
func (c *kindCatalog) apply(q string) error {
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "/* idemc:") { // a BigQuery job directive
		_, q, _ = strings.Cut(q, "*/")
	}
	m := stmtRes[0].FindStringSubmatch(strings.TrimSpace(q))
	if m == nil {
		return nil // session settings, transactions, the audit and state tables
	}
	verb, name, rest := m[1], strings.ToLower(m[3]), m[4]
	have := c.rels[name]
	if m[2] != "" && have == "" {
		return nil // ALTER … IF EXISTS of nothing
	}
	wrongKind := func(want string) error {
		if have != "" && have != want {
			return fmt.Errorf("SQL compilation error: Object found is of type '%s', not specified type '%s'", strings.ToUpper(have), strings.ToUpper(want))
		}
		return nil
	}
	switch verb {
	case "CREATE VIEW":
		if have != "" {
			return fmt.Errorf("Already Exists: %s", name)
		}
		c.rels[name] = "view"
	case "CREATE OR REPLACE VIEW":
		if err := wrongKind("view"); err != nil {
			return err
		}
		c.rels[name] = "view"
	case "CREATE OR REPLACE TABLE", "CREATE TABLE IF NOT EXISTS":
		if err := wrongKind("table"); err != nil {
			return err
		}
		c.rels[name] = "table"
	case "DROP VIEW IF EXISTS", "DROP TABLE IF EXISTS":
		if err := wrongKind(map[bool]string{true: "view", false: "table"}[verb == "DROP VIEW IF EXISTS"]); err != nil {
			return err
		}
		delete(c.rels, name)
	case "ALTER TABLE", "ALTER VIEW":
		return c.alter(verb, name, rest)
	default: // DML
		if have != "table" {
			return fmt.Errorf("%s: %s is not a table", verb, name)
		}
	}
	return nil
}

// alter applies ALTER TABLE|VIEW name …: a rename, or Snowflake's swap.
func (c *kindCatalog) alter(verb, name, rest string) error {
	have := c.rels[name]
	want := map[bool]string{true: "view", false: "table"}[verb == "ALTER VIEW"]
	if have != want {
		return fmt.Errorf("%s %s: %s does not exist or is a %s", verb, name, want, have)
	}
	if r := renameRe.FindStringSubmatch(rest); r != nil {
		to := strings.ToLower(r[1])
		if c.rels[to] != "" {
			return fmt.Errorf("%s already exists", to)
		}
		delete(c.rels, name)
		c.rels[to] = have
	} else if r := swapRe.FindStringSubmatch(rest); r != nil {
		other := strings.ToLower(r[1])
		if have != "table" || c.rels[other] != "table" {
			return fmt.Errorf("SWAP WITH: %s and %s must both be tables", name, other)
		}
	}
	return nil
}

func (c *kindCatalog) step() error {
	c.n++
	if c.crashAt > 0 && c.n > c.crashAt {
		return errKilled
	}
	return nil
}

func (c *kindCatalog) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	return execStep(ctx, c, st)
}

func (c *kindCatalog) run(_ context.Context, q string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.step(); err != nil {
		return 0, err
	}
	c.ran = append(c.ran, q)
	if _, ok := c.locks.Answer(q); ok {
		return 1, nil
	}
	if c.refuse != "" && strings.Contains(q, c.refuse) {
		return 0, errors.New("SQL access control error: insufficient privileges")
	}
	if c.engine == "bigquery" {
		return c.scriptExec(q)
	}
	return 1, c.apply(q)
}

// scriptExec is Exec on BigQuery: a script is buffered, then applied whole
// at COMMIT (to a copy of the catalog, kept only if every statement
// applied), or not at all when one of its ASSERTs failed.
func (c *kindCatalog) scriptExec(q string) (int64, error) {
	switch strings.TrimSpace(q) {
	case bqdialect.BeginSQL:
		c.script = []string{}
		return 1, nil
	case bqdialect.RollbackSQL:
		c.script = nil
		return 1, nil
	case bqdialect.CommitSQL:
		script := c.script
		c.script = nil
		for _, s := range script {
			if strings.HasPrefix(s, "ASSERT") && c.failOn != "" && strings.Contains(s, c.failOn) {
				return 0, errors.New("idemc: check failed")
			}
		}
		saved := maps.Clone(c.rels)
		for _, s := range script {
			if err := c.apply(s); err != nil {
				c.rels = saved
				return 0, err
			}
		}
		return 1, nil
	}
	if c.script != nil {
		c.script = append(c.script, q)
		return 1, nil
	}
	return 1, c.apply(q)
}

var kindQueryRe = regexp.MustCompile(`information_schema\.tables WHERE .* lower\(table_name\) = '([a-z_]+)'`)

func (c *kindCatalog) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.step(); err != nil {
		return nil, nil, err
	}
	c.ran = append(c.ran, q)
	if rows, ok := c.locks.Answer(q); ok {
		return []string{"run_id"}, rows, nil
	}
	if c.script != nil { // an ASSERT of the script: the verdict comes at COMMIT
		c.script = append(c.script, q)
		return []string{"x"}, nil, nil
	}
	if m := kindQueryRe.FindStringSubmatch(q); m != nil {
		switch c.rels[m[1]] {
		case "table":
			return []string{"table_type"}, [][]string{{"BASE TABLE"}}, nil
		case "view":
			return []string{"table_type"}, [][]string{{"VIEW"}}, nil
		}
		return []string{"table_type"}, nil, nil
	}
	if c.failOn != "" && strings.Contains(q, c.failOn) {
		return []string{"x"}, [][]string{{"1"}}, nil
	}
	if strings.HasPrefix(q, "SELECT count(*) FROM ") {
		return []string{"n"}, [][]string{{"0"}}, nil
	}
	return []string{"x"}, nil, nil
}

func (c *kindCatalog) Columns(context.Context, string) ([]plan.Column, error) { return c.cols, nil }
func (c *kindCatalog) Relation(_ context.Context, rel plan.Relation) ([]plan.Column, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cols, c.rels[strings.ToLower(rel.Name)] != "", nil
}

// listing is the run's view of the relations at its start (RelationsQuery).
func (c *kindCatalog) listing() map[plan.Relation]bool {
	out := map[plan.Relation]bool{}
	for n := range c.rels {
		out[plan.Relation{Schema: "analytics", Name: n}] = true
	}
	return out
}

func (c *kindCatalog) state() string {
	var out []string
	for n, k := range c.rels {
		out = append(out, n+"="+k)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// settled is state without Spark's staging tables: a unit killed between
// its stage and its cleanup leaves its stage on Spark whatever its recipe
// (the stage carries the run's hash; no later run drops it), which is not
// a switch's leftover.
func (c *kindCatalog) settled() string {
	var out []string
	for _, r := range strings.Fields(c.state()) {
		if !strings.Contains(r, "__idemc_stage_") {
			out = append(out, r)
		}
	}
	return strings.Join(out, " ")
}

// kindWrite is the unit of model events materialized as kind.
func kindWrite(kind string) *plan.Write {
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	w := &plan.Write{Model: "events", Materialized: kind, Target: plan.Relation{Schema: "analytics", Name: "events"},
		Select: "SELECT id, d FROM raw.events", State: plan.StateIn("analytics"),
		Checks: []*plan.Check{{Name: "not_null(id)", Kind: plan.CheckNotNull, Severity: "error", Columns: []string{"id"}}}}
	if kind == plan.Incremental {
		w.Strategy, w.PartitionBy = "delete_insert", "d"
		w.Window = &plan.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"}
	}
	return w
}

// kindUnit runs the unit of kind once on the catalog, as a new run of the
// catalog's engine.
func kindUnit(t *testing.T, c *kindCatalog, kind string) *UnitResult {
	t.Helper()
	ad, _ := adapters.Lookup(c.engine)
	w := kindWrite(kind)
	w.Audit = &plan.AuditRow{}
	part := ""
	if w.Window != nil {
		part = w.Window.Key
	}
	u := &plan.Unit{ID: "events/" + part, Model: "events", Partition: part, Write: w}
	c.mu.Lock()
	db := &dbState{attempts: map[[2]string]int64{}, relations: c.listing(), defaultSchema: "analytics"}
	c.mu.Unlock()
	r := &run{p: &project.Project{Root: t.TempDir()}, eng: c, ad: ad, d: ad.Dialect, res: &Result{RunID: "20260701T000000.000Z-0000abcd"},
		pl:    &plan.Plan{Target: c.engine, Nodes: map[string]*plan.Node{"events": {OnSchemaChange: "fail"}}},
		state: w.State, db: db, ddl: map[plan.Relation]*sync.Mutex{}}
	return r.runUnit(context.Background(), u)
}

// kindSwitch is a scripted engine's materialization switches: cols are the
// columns as its catalog spells them, failOn a failing check's text, and
// putIn(from, to) the statement that puts the new relation in the
// destination's place, refused once; restores says the failed unit then
// leaves the old relation alone (else the old one was dropped before it,
// and the next run finishes the switch).
type kindSwitch struct {
	engine string
	cols   []plan.Column
	failOn string
	putIn  func(from, to string) (stmt string, restores bool)
}

var relKind = map[string]string{plan.View: "view", plan.Table: "table", plan.Incremental: "table"}

// check switches a view to a table or an incremental table and back: a
// clean unit, one killed after each of its statements and rerun, one whose
// put-in statement is refused, one whose check fails.
func (k kindSwitch) check(t *testing.T) {
	for _, tr := range [][2]string{{plan.View, plan.Table}, {plan.Table, plan.View}, {plan.View, plan.Incremental}, {plan.Incremental, plan.View}} {
		from, to := tr[0], tr[1]
		fresh := func() *kindCatalog {
			return &kindCatalog{engine: k.engine, rels: map[string]string{"events": relKind[from], "idemc_audit": "table"}, cols: k.cols}
		}
		want, old := "events="+relKind[to]+" idemc_audit=table", "events="+relKind[from]+" idemc_audit=table"
		clean := fresh()
		ur := kindUnit(t, clean, to)
		if ur.Status != "succeeded" || clean.state() != want {
			t.Errorf("%s %s → %s: %s %s; relations %s", k.engine, from, to, ur.Status, ur.Error, clean.state())
			continue
		}
		total := clean.n
		t.Logf("%s %s → %s: %d statements, trials killed after each", k.engine, from, to, total)
		for n := 1; n < total; n++ {
			c := fresh()
			c.crashAt = n
			if ur := kindUnit(t, c, to); ur.Status == "succeeded" {
				continue // the kill came after the unit's last statement
			}
			c.crashAt, c.n, c.script = 0, 0, nil
			ur := kindUnit(t, c, to)
			if ur.Status != "succeeded" || c.settled() != want {
				t.Errorf("%s %s → %s killed after statement %d of %d: the rerun %s (%s); relations %s", k.engine, from, to, n, total, ur.Status, ur.Error, c.state())
			}
		}
		stmt, restores := k.putIn(from, to)
		refused := fresh()
		refused.refuse = stmt
		ur = kindUnit(t, refused, to)
		switch {
		case ur.Status != "failed":
			t.Errorf("%s %s → %s, %q refused: %s", k.engine, from, to, stmt, ur.Status)
		case restores && refused.state() != old:
			t.Errorf("%s %s → %s, %q refused: relations %s (want the old relation alone)", k.engine, from, to, stmt, refused.state())
		case !restores:
			refused.refuse, refused.n = "", 0
			if ur := kindUnit(t, refused, to); ur.Status != "succeeded" || refused.state() != want {
				t.Errorf("%s %s → %s, %q refused, then rerun: %s (%s); relations %s", k.engine, from, to, stmt, ur.Status, ur.Error, refused.state())
			}
		}
		failing := fresh()
		failing.failOn = k.failOn
		if ur := kindUnit(t, failing, to); ur.Status != "failed" || failing.state() != old {
			t.Errorf("%s %s → %s with a failing check: %s; relations %s (want the old relation alone)", k.engine, from, to, ur.Status, failing.state())
		}
	}
}

// TestSnowflakeKindSwitch (issue 17, item 7): on Snowflake a view becomes a
// table or an incremental table and back (SWAP WITH takes tables only),
// and a run killed at any statement of the switch is repaired by the
// next: the destination ends of the new kind, nothing is left beside it.
// A failing check keeps the old relation; so does a refused second rename
// (the failed unit renames the old relation back).
func TestSnowflakeKindSwitch(t *testing.T) {
	kindSwitch{engine: "snowflake", cols: []plan.Column{{Name: "ID", Type: "NUMBER(38, 0)"}, {Name: "D", Type: "DATE"}}, failOn: `"ID" IS NULL`,
		putIn: func(string, string) (string, bool) { return `"EVENTS__IDEMC_NEW" RENAME TO`, true }}.check(t)
}
