package runner

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/snowflake" // registers the dialect
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// snowCatalog is a scripted Snowflake that keeps which relations exist and
// of which kind, and refuses what Snowflake refuses across kinds: SWAP
// WITH a view, CREATE OR REPLACE of an object of the other kind, DROP VIEW
// of a table (and DROP TABLE of a view) even with IF EXISTS, DML on a
// view. After crashAt statements every statement fails and changes
// nothing, as when the process is killed.
type snowCatalog struct {
	adapters.Engine
	mu      sync.Mutex
	rels    map[string]string // lower-case name (no schema) → table or view
	crashAt int               // 0: never
	n       int
	cols    []adapters.Column
	failOn  string // a check query containing it returns a failing row
	refuse  string // a statement containing it fails (not a kill)
}

var errKilled = errors.New("the process was killed")

func (c *snowCatalog) Session(context.Context) (adapters.Session, error) { return c, nil }
func (c *snowCatalog) Close() error                                      { return nil }

var (
	identRe  = `"ANALYTICS"\."([A-Z_]+)"`
	stmtRes  = []*regexp.Regexp{regexp.MustCompile(`^(CREATE OR REPLACE VIEW|CREATE OR REPLACE TABLE|CREATE TABLE IF NOT EXISTS|DROP VIEW IF EXISTS|DROP TABLE IF EXISTS|INSERT OVERWRITE INTO|INSERT INTO|DELETE FROM|ALTER TABLE|ALTER VIEW) (IF EXISTS )?` + identRe + `(.*)`)}
	renameRe = regexp.MustCompile(`^ RENAME TO ` + identRe)
	swapRe   = regexp.MustCompile(`^ SWAP WITH ` + identRe)
)

// apply changes the catalog as Snowflake would, or refuses.
func (c *snowCatalog) apply(q string) error {
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
	case "INSERT OVERWRITE INTO", "INSERT INTO", "DELETE FROM":
		if have != "table" {
			return fmt.Errorf("%s: %s is not a table", verb, name)
		}
	case "ALTER TABLE", "ALTER VIEW":
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
	}
	return nil
}

func (c *snowCatalog) step() error {
	c.n++
	if c.crashAt > 0 && c.n > c.crashAt {
		return errKilled
	}
	return nil
}

func (c *snowCatalog) Exec(_ context.Context, q string) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.step(); err != nil {
		return 0, err
	}
	if c.refuse != "" && strings.Contains(q, c.refuse) {
		return 0, errors.New("SQL access control error: insufficient privileges")
	}
	return 1, c.apply(q)
}

var kindQueryRe = regexp.MustCompile(`information_schema\.tables WHERE .* lower\(table_name\) = '([a-z_]+)'`)

func (c *snowCatalog) Query(_ context.Context, q string, _ int) ([]string, [][]string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.step(); err != nil {
		return nil, nil, err
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

func (c *snowCatalog) Columns(context.Context, string) ([]adapters.Column, error) { return c.cols, nil }
func (c *snowCatalog) Relation(_ context.Context, rel adapters.Relation) ([]adapters.Column, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.cols, c.rels[strings.ToLower(rel.Name)] != "", nil
}

// listing is the run's view of the relations at its start (RelationsQuery).
func (c *snowCatalog) listing() map[adapters.Relation]bool {
	out := map[adapters.Relation]bool{}
	for n := range c.rels {
		out[adapters.Relation{Schema: "analytics", Name: n}] = true
	}
	return out
}

func (c *snowCatalog) state() string {
	var out []string
	for n, k := range c.rels {
		out = append(out, n+"="+k)
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

// kindWrite is the unit of model events materialized as kind.
func kindWrite(kind string) *adapters.Write {
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	w := &adapters.Write{Model: "events", Materialized: kind, Target: adapters.Relation{Schema: "analytics", Name: "events"},
		Select: "SELECT id, d FROM raw.events", State: adapters.StateIn("analytics"),
		Checks: []*adapters.Check{{Name: "not_null(id)", Kind: adapters.CheckNotNull, Severity: "error", Columns: []string{"id"}}}}
	if kind == adapters.Incremental {
		w.Strategy, w.PartitionBy = "delete_insert", "d"
		w.Window = &adapters.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"}
	}
	return w
}

// snowUnit runs the unit of kind once on the catalog, as a new run.
func snowUnit(t *testing.T, c *snowCatalog, kind string) *UnitResult {
	t.Helper()
	ad, _ := adapters.Lookup("snowflake")
	w := kindWrite(kind)
	w.Audit = &adapters.AuditRow{}
	part := ""
	if w.Window != nil {
		part = w.Window.Key
	}
	u := &compiler.Unit{ID: "events/" + part, Model: "events", Partition: part, Write: w}
	c.mu.Lock()
	db := &dbState{attempts: map[[2]string]int64{}, relations: c.listing(), defaultSchema: "analytics"}
	c.mu.Unlock()
	r := &run{p: &project.Project{Root: t.TempDir()}, eng: c, ad: ad, d: ad.Dialect, res: &Result{RunID: "20260701T000000.000Z-0000abcd"},
		plan:  &compiler.Plan{Target: "snowflake", Nodes: map[string]*compiler.Node{"events": {OnSchemaChange: "fail"}}},
		state: w.State, db: db, ddl: map[adapters.Relation]*sync.Mutex{}}
	return r.runUnit(context.Background(), u)
}

// TestSnowflakeKindSwitch (issue 17, item 7): on Snowflake a view becomes a
// table or an incremental table and back (SWAP WITH takes tables only),
// and a run killed at any statement of the switch is repaired by the
// next: the destination ends of the new kind, nothing is left beside it.
// A failing check keeps the old relation.
func TestSnowflakeKindSwitch(t *testing.T) {
	kindOf := map[string]string{adapters.View: "view", adapters.Table: "table", adapters.Incremental: "table"}
	for _, tr := range [][2]string{{adapters.View, adapters.Table}, {adapters.Table, adapters.View}, {adapters.View, adapters.Incremental}, {adapters.Incremental, adapters.View}} {
		from, to := tr[0], tr[1]
		cols := []adapters.Column{{Name: "ID", Type: "NUMBER(38, 0)"}, {Name: "D", Type: "DATE"}}
		fresh := func() *snowCatalog {
			return &snowCatalog{rels: map[string]string{"events": kindOf[from], "idemc_audit": "table"}, cols: cols}
		}
		clean := fresh()
		ur := snowUnit(t, clean, to)
		if ur.Status != "succeeded" || clean.state() != "events="+kindOf[to]+" idemc_audit=table" {
			t.Errorf("%s → %s: %s %s; relations %s", from, to, ur.Status, ur.Error, clean.state())
			continue
		}
		total := clean.n
		t.Logf("%s → %s: %d statements, trials killed after each", from, to, total)
		for k := 1; k < total; k++ {
			c := fresh()
			c.crashAt = k
			if ur := snowUnit(t, c, to); ur.Status == "succeeded" {
				continue // the kill came after the unit's last statement
			}
			c.crashAt, c.n = 0, 0
			ur := snowUnit(t, c, to)
			if ur.Status != "succeeded" || c.state() != "events="+kindOf[to]+" idemc_audit=table" {
				t.Errorf("%s → %s killed after statement %d of %d: the rerun %s (%s); relations %s", from, to, k, total, ur.Status, ur.Error, c.state())
			}
		}
		// The second rename refused: the failed unit renames the old
		// relation back, so the destination is never left missing.
		refused := fresh()
		refused.refuse = `"EVENTS__IDEMC_NEW" RENAME TO`
		if ur := snowUnit(t, refused, to); ur.Status != "failed" || refused.state() != "events="+kindOf[from]+" idemc_audit=table" {
			t.Errorf("%s → %s, second rename refused: %s; relations %s (want the old relation alone)", from, to, ur.Status, refused.state())
		}
		failing := fresh()
		failing.failOn = `"ID" IS NULL`
		if ur := snowUnit(t, failing, to); ur.Status != "failed" || failing.state() != "events="+kindOf[from]+" idemc_audit=table" {
			t.Errorf("%s → %s with a failing check: %s; relations %s (want the old relation alone)", from, to, ur.Status, failing.state())
		}
	}
}
