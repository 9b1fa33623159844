package spark

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
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

// fakeExecutor records statements; failQuery makes a query return rows.
type fakeExecutor struct {
	stmts []string
	rows  func(q string) [][]any
	fail  func(q string) error
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
	want := "CREATE TABLE | INSERT INTO | CREATE OR | SELECT count(*) | SELECT t.`event_key`, | SET spark.databricks.delta.write.txnAppId | SET spark.databricks.delta.write.txnVersion | INSERT INTO | RESET spark.databricks.delta.write.txnAppId | RESET spark.databricks.delta.write.txnVersion | UPDATE `analytics`.`idemc_audit` | DROP TABLE"
	if got := heads(x.stmts); got != want {
		t.Fatalf("statements:\n got %s\nwant %s", got, want)
	}
	if !strings.Contains(x.stmts[6], "txnVersion = 3") {
		t.Errorf("txnVersion must be the attempt: %s", x.stmts[6])
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
	if last := x.stmts[len(x.stmts)-1]; !strings.HasPrefix(last, "DROP TABLE IF EXISTS") {
		t.Errorf("the stage is dropped after a failure: %s", last)
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
			if !strings.HasSuffix(q, ") USING DELTA") {
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
