package spark

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/spark/dialect"
	"github.com/idemc/idemc/plan"
)

func testWrite(strategy string) *plan.Write { return dialecttest.DayWrite(strategy) }

func TestConnectionString(t *testing.T) {
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{"host": "localhost"}, "sc://localhost:15002/"},
		{map[string]string{"host": "adb-1.azuredatabricks.net", "token": "dapi123", "http_path": "sql/protocolv1/o/1/0123-456789-abc"},
			"sc://adb-1.azuredatabricks.net:443/;token=dapi123;x-databricks-cluster-id=0123-456789-abc"},
		{map[string]string{"dsn": "sc://h:1/;token=t"}, "sc://h:1/;token=t"},
	} {
		got, err := Connection(tc.settings)
		if err != nil || got != tc.want {
			t.Errorf("%v: %q %v, want %q", tc.settings, got, err, tc.want)
		}
	}
	if _, err := Connection(map[string]string{}); err == nil {
		t.Error("a target without host or dsn must be refused")
	}
	if got := redactToken("sc://h:443/;token=secret;x-databricks-cluster-id=c"); strings.Contains(got, "secret") {
		t.Errorf("token not redacted: %s", got)
	}
}

// fakeExecutor records statements; rows makes a query return rows, fail
// a statement fail, affected a counted statement report its rows.
type fakeExecutor struct {
	stmts    []string
	rows     func(q string) [][]any
	fail     func(q string) error
	affected func(q string) int64
}

func (f *fakeExecutor) written(ctx context.Context, q string) (int64, error) {
	if err := f.exec(ctx, q); err != nil {
		return -1, err
	}
	if f.affected != nil {
		return f.affected(q), nil
	}
	return -1, nil
}

func (f *fakeExecutor) exec(ctx context.Context, q string) error {
	f.stmts = append(f.stmts, q)
	if f.fail != nil {
		return f.fail(q)
	}
	return nil
}

func (f *fakeExecutor) query(ctx context.Context, q string) ([]string, []string, [][]any, error) {
	f.stmts = append(f.stmts, q)
	if f.rows != nil {
		if r := f.rows(q); r != nil {
			return []string{"k", "n"}, []string{"STRING", "LONG"}, r, nil
		}
	}
	return []string{"n"}, []string{"LONG"}, nil, nil
}

// runUnit executes steps as the runner does.
func runUnit(s adapters.Session, steps []plan.Step) error {
	ctx := context.Background()
	fail := func(err error) error {
		for _, st := range steps {
			if st.Purpose == plan.Cleanup {
				_, _ = s.Exec(ctx, &st)
			}
		}
		return err
	}
	for _, st := range steps {
		if st.Purpose == plan.Validate || st.Purpose == plan.CheckStep {
			res, err := s.Exec(ctx, &st)
			rows := res.Rows
			if err != nil {
				return fail(err)
			}
			if len(rows) > 0 && st.Check.Severity != "warn" {
				return fail(fmt.Errorf("check %s failed", st.Check.Name))
			}
			continue
		}
		if _, err := s.Exec(ctx, &st); err != nil && st.Purpose != plan.Cleanup {
			return fail(err)
		}
	}
	return nil
}

func heads(stmts []string) string {
	out := make([]string, len(stmts))
	for i, q := range stmts {
		f := strings.Fields(q)
		out[i] = strings.Join(f[:min(2, len(f))], " ")
	}
	return strings.Join(out, " | ")
}

func TestSessionVerifiesThenPublishes(t *testing.T) {
	x := &fakeExecutor{}
	s := &Session{x: x, d: dialect.NewDialect()}
	if err := runUnit(s, dialect.NewDialect().Recipe(testWrite("insert_overwrite"))); err != nil {
		t.Fatal(err)
	}
	want := "CREATE TABLE | INSERT INTO | MERGE INTO | CREATE OR | SELECT count(*) | SELECT t.`event_key`, | SET spark.databricks.delta.write.txnAppId | SET spark.databricks.delta.write.txnVersion | INSERT INTO | RESET spark.databricks.delta.write.txnAppId | RESET spark.databricks.delta.write.txnVersion | INSERT INTO | DROP TABLE | DELETE FROM"
	if got := heads(x.stmts); got != want {
		t.Fatalf("statements:\n got %s\nwant %s", got, want)
	}
	// The audit is append-only: the unit's end is a row of its own, never
	// an UPDATE of the shared audit table (Delta's UPDATEs conflict).
	if fin := x.stmts[len(x.stmts)-3]; !strings.HasPrefix(fin, "INSERT INTO `analytics`.`idemc_audit`") || !strings.Contains(fin, "'succeeded'") {
		t.Errorf("the unit's end must be an audit row of its own: %s", fin)
	}
	if !strings.Contains(x.stmts[7], "txnVersion = 3") {
		t.Errorf("txnVersion must be the attempt: %s", x.stmts[7])
	}
}

func TestSessionFailingCheckPublishesNothing(t *testing.T) {
	x := &fakeExecutor{rows: func(q string) [][]any {
		if strings.Contains(q, "HAVING count(*) > 1") {
			return [][]any{{"k1", int64(2)}}
		}
		return nil
	}}
	s := &Session{x: x, d: dialect.NewDialect()}
	err := runUnit(s, dialect.NewDialect().Recipe(testWrite("delete_insert")))
	if err == nil || !strings.Contains(err.Error(), "unique(event_key)") {
		t.Fatalf("want the check to fail, got %v", err)
	}
	for _, q := range x.stmts {
		if strings.Contains(q, "REPLACE WHERE") || strings.HasPrefix(q, "UPDATE") {
			t.Fatalf("published or finished after a failed check: %s", q)
		}
	}
	// The stage is dropped, and the unit's claim released last.
	if last := x.stmts[len(x.stmts)-2]; !strings.HasPrefix(last, "DROP TABLE IF EXISTS") {
		t.Errorf("the stage is dropped after a failure: %s", last)
	}
	if last := x.stmts[len(x.stmts)-1]; !strings.HasPrefix(last, "DELETE FROM `analytics`.`idemc_locks` WHERE lock_key") {
		t.Errorf("the claim is released after a failure: %s", last)
	}
	if n, err := adapters.ExecSQL(context.Background(), s, dialect.NewDialect().Rollback()); n != 0 || err != nil {
		t.Errorf("rollback is a no-op on Spark: %d %v", n, err)
	}
	e := &Engine{}
	if !e.Retryable(errors.New("io.delta.exceptions.ConcurrentAppendException: Files were added")) {
		t.Error("a concurrent append must be retryable")
	}
}

// goKey is the key the spec gives for the parts.

// TestStateDDLIsSentUnchanged: the dialect writes USING DELTA into every
// CREATE TABLE of the state tables, and the Session sends each statement
// as the step has it (it used to append USING DELTA to any SQL starting
// with CREATE TABLE).
func TestStateDDLIsSentUnchanged(t *testing.T) {
	x := &fakeExecutor{}
	s := &Session{x: x, d: dialect.NewDialect()}
	ddl := dialect.NewDialect().StateDDL(plan.StateIn("analytics"))
	creates := 0
	for _, q := range ddl {
		if strings.HasPrefix(q, "CREATE TABLE") {
			creates++
			if !strings.HasSuffix(q, ") USING DELTA") && !strings.HasSuffix(q, ") USING DELTA PARTITIONED BY (job_name)") {
				t.Errorf("a state table is not a Delta table by its DDL:\n%s", q)
			}
		}
		if _, err := s.Exec(context.Background(), &plan.Step{SQL: q}); err != nil {
			t.Fatal(err)
		}
	}
	if creates != 3 {
		t.Errorf("%d CREATE TABLE statements, want 3 (audit, state, runs)", creates)
	}
	if strings.Join(x.stmts, "\n;\n") != strings.Join(ddl, "\n;\n") {
		t.Errorf("the session changed the statements:\n got %q\nwant %q", x.stmts, ddl)
	}
}

// TestRelationInMissingSchema: SHOW TABLES IN a schema not created yet
// fails with SCHEMA_NOT_FOUND on Spark; that relation does not exist (the
// first build of a fresh target used to fail reading its audit table).
func TestRelationInMissingSchema(t *testing.T) {
	x := &fakeExecutor{}
	s := &Session{x: &missingSchema{x}, d: dialect.NewDialect()}
	cols, ok, err := s.Relation(context.Background(), plan.Relation{Schema: "fresh", Name: "idemc_audit"})
	if err != nil || ok || cols != nil {
		t.Fatalf("Relation in a missing schema: %v %v %v, want not found and no error", cols, ok, err)
	}
}

// missingSchema answers every query as Spark does for a schema that does
// not exist.
type missingSchema struct{ *fakeExecutor }

func (m *missingSchema) query(ctx context.Context, q string) ([]string, []string, [][]any, error) {
	m.stmts = append(m.stmts, q)
	return nil, nil, nil, errors.New("[SCHEMA_NOT_FOUND] The schema `spark_catalog`.`fresh` cannot be found. SQLSTATE: 42704")
}

// TestSeedLoadUsesCatalog: a seed loads on a session of the target's
// catalog (it used to run on a bare session, landing in the default
// catalog), and released sessions are reused.
func TestSeedLoadUsesCatalog(t *testing.T) {
	var opened []*fakeExecutor
	e := &Engine{catalog: "main", open: func(context.Context) (executor, error) {
		x := &fakeExecutor{}
		opened = append(opened, x)
		return x, nil
	}}
	tbl := &seed.Table{Columns: []seed.Column{{Name: "a", Kind: seed.Text}}, Rows: [][]any{{"x"}}}
	for i := 0; i < 2; i++ {
		if _, err := e.LoadSeed(context.Background(), plan.Relation{Schema: "raw", Name: "s"}, tbl); err != nil {
			t.Fatal(err)
		}
	}
	if len(opened) != 1 {
		t.Fatalf("%d sessions opened for two loads, want 1 (reused)", len(opened))
	}
	if got := opened[0].stmts[0]; got != "USE CATALOG `main`" {
		t.Fatalf("first statement of the seed's session: %q, want USE CATALOG `main`", got)
	}
}

// TestRelationsShowTables: the relations are listed with SHOW TABLES IN
// each schema asked for, or in every schema SHOW SCHEMAS lists when none
// is (no information_schema on open-source Spark); a session's temporary
// views are not a schema's, and a schema dropped in between, or never
// made, has none.
func TestRelationsShowTables(t *testing.T) {
	for _, tc := range []struct {
		name    string
		schemas []string
		want    string
		queries []string
	}{
		{"every schema", nil, "[[a t1]]", []string{"SHOW SCHEMAS", "SHOW TABLES IN `a`"}},
		// A metastore may hold thousands of schemas: a build lists its own.
		{"the plan's schemas", []string{"b", "gone"}, "[[b t2]]", []string{"SHOW TABLES IN `b`"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := &fakeExecutor{}
			x.rows = func(q string) [][]any {
				switch q {
				case "SHOW SCHEMAS":
					return [][]any{{"a"}, {"gone"}}
				case "SHOW TABLES IN `a`":
					return [][]any{{"a", "t1", false}, {"", "tmp", true}}
				case "SHOW TABLES IN `b`":
					return [][]any{{"b", "t2", false}}
				}
				return nil
			}
			s := &Session{x: &goneSchema{x}, d: dialect.NewDialect()}
			rels, err := adapters.ListRelations(context.Background(), s, dialect.NewDialect(), tc.schemas)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(rels) != tc.want {
				t.Fatalf("relations %v, want %s", rels, tc.want)
			}
			// (goneSchema answers `gone` before the fake records it.)
			if fmt.Sprint(x.stmts) != fmt.Sprint(tc.queries) {
				t.Fatalf("statements %q, want %q", x.stmts, tc.queries)
			}
		})
	}
}

type goneSchema struct{ *fakeExecutor }

func (g *goneSchema) query(ctx context.Context, q string) ([]string, []string, [][]any, error) {
	if strings.Contains(q, "`gone`") {
		return nil, nil, nil, errors.New("[SCHEMA_NOT_FOUND] The schema `gone` cannot be found.")
	}
	return g.fakeExecutor.query(ctx, q)
}

// TestRelationKind: a relation's kind from SHOW VIEWS / SHOW TABLES (the
// runner read information_schema.tables, which open-source Spark lacks,
// and failed every unit whose destination existed).
func TestRelationKind(t *testing.T) {
	x := &fakeExecutor{rows: func(q string) [][]any {
		switch q {
		case "SHOW VIEWS IN `a` LIKE 'v'":
			return [][]any{{"a", "v", false}}
		case "SHOW TABLES IN `a` LIKE 'v'", "SHOW TABLES IN `a` LIKE 't'":
			return [][]any{{"a", strings.TrimSuffix(q[len(q)-2:], "'"), false}}
		}
		return nil
	}}
	s := &Session{x: x, d: dialect.NewDialect()}
	for name, want := range map[string]string{"v": "view", "t": "table", "none": ""} {
		got, ok, err := adapters.SessionKind(context.Background(), s, plan.Relation{Schema: "a", Name: name})
		if err != nil || !ok || got != want {
			t.Errorf("%s: %q %v %v, want %q", name, got, ok, err, want)
		}
	}
	if got, _, err := adapters.SessionKind(context.Background(), &Session{x: &missingSchema{&fakeExecutor{}}, d: dialect.NewDialect()}, plan.Relation{Schema: "fresh", Name: "t"}); got != "" || err != nil {
		t.Errorf("in a missing schema: %q %v, want none", got, err)
	}
}

// TestRelationInCurrentSchema: a relation without a schema (a target
// without `schema`) is looked up in the session's current schema; `SHOW
// TABLES IN ``` failed, so the state never found it and every build
// rebuilt it (the conformance suite's default_schema scenario, live).
func TestRelationInCurrentSchema(t *testing.T) {
	x := &fakeExecutor{rows: func(q string) [][]any {
		if q == "SHOW TABLES LIKE 't'" {
			return [][]any{{"default", "t", false}}
		}
		return nil
	}}
	s := &Session{x: x, d: dialect.NewDialect()}
	if _, ok, err := s.Relation(context.Background(), plan.Relation{Name: "t"}); !ok || err != nil {
		t.Errorf("Relation: %v %v; statements %q", ok, err, x.stmts)
	}
	if got, _, err := adapters.SessionKind(context.Background(), s, plan.Relation{Name: "t"}); got != "table" || err != nil {
		t.Errorf("kind: %q %v; statements %q", got, err, x.stmts)
	}
	if q := dialect.NewDialect().DefaultSchemaQuery(); q != "SELECT current_schema()" {
		t.Errorf("the state needs the current schema: %q", q)
	}
}

// TestFailedPublishResetsTxnAppID: a publish that fails (a Delta conflict
// the runner retries) must not leave the idempotent-write id set on the
// session. Delta applies it to every later write and skips a second
// write of one (app id, version) to a table, silently: the claim's
// release would record it on the lock table and the retry's new claim
// would be skipped, leaving the unit waiting for a claim nobody holds
// (found live: rerun_same_state waited until the test timed out).
func TestFailedPublishResetsTxnAppID(t *testing.T) {
	x := &fakeExecutor{fail: func(q string) error {
		if strings.Contains(q, "REPLACE WHERE") {
			return errors.New("io.delta.exceptions.ConcurrentAppendException: Files were added")
		}
		return nil
	}}
	s := &Session{x: x, d: dialect.NewDialect()}
	steps := dialect.NewDialect().Recipe(testWrite("delete_insert"))
	ctx := context.Background()
	var published bool
	for i := range steps {
		if _, err := s.Exec(ctx, &steps[i]); err != nil {
			published = strings.Contains(steps[i].SQL, "REPLACE WHERE")
			break
		}
	}
	if !published {
		t.Fatalf("the publish did not fail as arranged: %s", heads(x.stmts))
	}
	// What the runner sends next on a retry: the release of the claim.
	release := "DELETE FROM `analytics`.`idemc_locks` WHERE lock_key = 'k' AND run_id = 'r'"
	if _, err := s.Exec(ctx, &plan.Step{Purpose: plan.Cleanup, SQL: release}); err != nil {
		t.Fatal(err)
	}
	set := false
	for _, q := range x.stmts {
		switch {
		case strings.HasPrefix(q, "SET spark.databricks.delta.write.txnAppId"):
			set = true
		case strings.HasPrefix(q, "RESET spark.databricks.delta.write.txnAppId"):
			set = false
		case q == release && set:
			t.Fatalf("the claim's release ran with the txnAppId still set: %s", heads(x.stmts))
		}
	}
	if !strings.Contains(heads(x.stmts), "RESET spark.databricks.delta.write.txnVersion") {
		t.Errorf("txnVersion not reset after the failed publish: %s", heads(x.stmts))
	}
	if !s.failed {
		t.Error("a session that saw an error must not be reused")
	}
}

// TestConcurrentCommitRetriedForMinutes: the conflict CI met when 30
// partitions of the demo's unpartitioned events_daily replaced their
// ranges at once (a unit lost four quick tries in a row and failed) is
// retryable, and Spark gives the runner a budget of minutes for it.
func TestConcurrentCommitRetriedForMinutes(t *testing.T) {
	e := &Engine{}
	msg := "execution error: [DELTA_CONCURRENT_APPEND] [DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added to the root of the table by a concurrent update. Please try the operation again. SQLSTATE: 2D521"
	if !e.Retryable(errors.New(msg)) {
		t.Errorf("not retryable: %s", msg)
	}
	if e.Retryable(errors.New("[TABLE_OR_VIEW_NOT_FOUND] The table or view `x` cannot be found")) {
		t.Error("a missing table is retryable")
	}
	if budget, first := e.RetryBackoff(); budget < time.Minute || first <= 0 || first > budget {
		t.Errorf("retry budget %s from %s, want minutes", budget, first)
	}
}

// TestLostDDLRaceOnHalfCreatedTable: the rerun after a killed run met the
// killed run's CREATE of the audit table still finishing on the server
// (its Delta log written, its catalog entry not yet: a fault trial, seed
// 203026389); that error, and a catalog entry that appeared between check
// and create, are a lost DDL race the runner runs again; a commit conflict
// or a missing table is not.
func TestLostDDLRaceOnHalfCreatedTable(t *testing.T) {
	e := &Engine{}
	for _, tc := range []struct {
		msg  string
		want bool
	}{
		{"runner: creating the audit table: execution error: failed to execute sql: CREATE TABLE IF NOT EXISTS `idemc_c31904_31`.`idemc_audit` (…) USING DELTA PARTITIONED BY (job_name): execution error: [DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION] [DELTA_CREATE_TABLE_WITH_NON_EMPTY_LOCATION] Cannot create table ('`idemc_c31904_31`.`idemc_audit`'). The associated location ('file:/tmp/idemc-spark/warehouse/idemc_c31904_31.db/idemc_audit') is not empty and also not a Delta table.. SQLSTATE: 42601", true},
		{"[TABLE_OR_VIEW_ALREADY_EXISTS] Cannot create table or view `s`.`t` because it already exists. SQLSTATE: 42P07", true},
		{"[SCHEMA_ALREADY_EXISTS] Cannot create schema `s` because it already exists. SQLSTATE: 42P06", true},
		{"execution error: [DELTA_CONCURRENT_APPEND] ConcurrentAppendException: Files were added to the root of the table by a concurrent update. SQLSTATE: 2D521", false},
		{"[TABLE_OR_VIEW_NOT_FOUND] The table or view `x` cannot be found", false},
	} {
		if got := e.LostDDLRace(errors.New(tc.msg)); got != tc.want {
			t.Errorf("LostDDLRace = %v, want %v: %.80s", got, tc.want, tc.msg)
		}
	}
	if e.LostDDLRace(nil) {
		t.Error("no error is a lost race")
	}
}
