package spark

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // evaluates the key expression offline

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
)

func testWrite(strategy string) *adapters.Write {
	start := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	return &adapters.Write{
		Model: "events_daily", Materialized: adapters.Incremental, Strategy: strategy,
		Target:      adapters.Relation{Schema: "analytics", Name: "events_daily"},
		Select:      "SELECT event_key, event_date, amount FROM raw.events WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'",
		PartitionBy: "event_date", Window: &adapters.Window{Start: start, End: start.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
		Columns: []string{"event_key", "event_date", "amount"},
		Checks: []*adapters.Check{
			{Name: "unique(event_key)", Kind: adapters.CheckUnique, Severity: "error", Columns: []string{"event_key"}},
		},
		State: adapters.StateIn("analytics"),
		Audit: &adapters.AuditRow{RunID: "r1", Job: "events_daily", Partition: "2026-07-02", Attempt: 3},
	}
}

func TestDialectSQL(t *testing.T) {
	d := NewDialect()
	w := testWrite("delete_insert")
	stage := "`analytics`.`" + StageRelation(w).Name + "`"
	for _, tc := range []struct{ name, got, want string }{
		{"quote", d.Quote("a`b"), "`a``b`"},
		{"three-part name (catalog)", d.Qualify(adapters.Relation{Database: "main", Schema: "marts", Name: "events"}), "`main`.`marts`.`events`"},
		{"string escapes with backslashes", d.String(`it's \`), `'it\'s \\'`},
		{"timestamp", d.Timestamp(time.Date(2026, 7, 2, 13, 0, 0, 0, time.UTC)), "TIMESTAMP '2026-07-02 13:00:00'"},
		{"null-safe key match", d.KeyMatch([]string{"k"}, "t", "s"), "t.`k` <=> s.`k`"},
		{"surrogate key", d.SurrogateKey([]string{"a"}), "md5(CASE WHEN a IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(a AS STRING)) AS STRING), ':', CAST(a AS STRING)) END)"},
		{"stage name", StageRelation(w).Name, fmt.Sprintf("events_daily__idemc_stage_20260702_%08x", hash32("r1"))},
		{"unique check reads the stage", d.stageCheck(w.Checks[0], w, &adapters.Write{Target: StageRelation(w), Window: w.Window, PartitionBy: w.PartitionBy, Materialized: adapters.Incremental}),
			"SELECT t.`event_key`, count(*) AS n FROM " + stage + " AS t\nWHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'\nGROUP BY t.`event_key`\nHAVING count(*) > 1\nLIMIT 5"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	steps := d.Recipe(w)
	var publish string
	for _, s := range steps {
		if s.Purpose == adapters.Insert {
			publish = s.SQL
		}
	}
	if want := "INSERT INTO `analytics`.`events_daily`\nREPLACE WHERE `event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03'\nSELECT `event_key`, `event_date`, `amount` FROM " + stage; publish != want {
		t.Errorf("publish:\n got %s\nwant %s", publish, want)
	}
	if ddl := d.StateDDL(w.State); !strings.HasSuffix(ddl[1], ") USING DELTA") {
		t.Errorf("audit table must be Delta: %s", ddl[1])
	}
}

func TestRecipeShapes(t *testing.T) {
	d := NewDialect()
	base := testWrite("delete_insert")
	view := *base
	view.Materialized, view.Strategy, view.Window, view.PartitionBy = adapters.View, "", nil, ""
	table := view
	table.Materialized = adapters.Table
	merge := *base
	merge.Strategy, merge.Window, merge.PartitionBy, merge.UniqueKey = "merge", nil, "", []string{"event_key"}
	merge.Watermark = &adapters.WatermarkWrite{Column: "updated_at"}
	byKey := merge
	byKey.Strategy, byKey.Watermark = "delete_insert", nil
	for _, tc := range []struct {
		name string
		w    *adapters.Write
		want string
	}{
		{"partition: stage, verify, REPLACE WHERE", base, "prepare audit_start stage validate check publish publish insert cleanup cleanup audit_finish cleanup"},
		{"merge: stage, verify, MERGE, mark", &merge, "prepare audit_start stage validate check publish publish merge cleanup cleanup state audit_finish cleanup"},
		{"delete_insert by key: one MERGE", &byKey, "prepare audit_start stage validate check publish publish merge cleanup cleanup audit_finish cleanup"},
		{"table: stage, verify, CREATE OR REPLACE", &table, "audit_start stage check publish audit_finish cleanup"},
		{"view: checks on the published view", &view, "audit_start publish check audit_finish"},
	} {
		var ps []string
		for _, s := range d.Recipe(tc.w) {
			ps = append(ps, string(s.Purpose))
			if s.Purpose == adapters.Begin || s.Purpose == adapters.Commit {
				t.Errorf("%s: Spark has no transactions, yet the recipe has %s", tc.name, s.Purpose)
			}
		}
		if got := strings.Join(ps, " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	for _, s := range d.Recipe(&byKey) {
		if s.Purpose == adapters.Merge && (!strings.Contains(s.SQL, "WHEN MATCHED THEN DELETE") || !strings.Contains(s.SQL, "t.`event_key` <=> s.`event_key` AND s.idemc_op = 'delete'")) {
			t.Errorf("delete_insert by key must be one null-safe MERGE: %s", s.SQL)
		}
	}
}

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
func runUnit(s adapters.Session, steps []adapters.Step) error {
	ctx := context.Background()
	fail := func(err error) error {
		for _, st := range steps {
			if st.Purpose == adapters.Cleanup {
				_, _ = s.Exec(ctx, st.SQL)
			}
		}
		return err
	}
	for _, st := range steps {
		if st.Purpose == adapters.Validate || st.Purpose == adapters.CheckStep {
			_, rows, err := s.Query(ctx, st.SQL, 5)
			if err != nil {
				return fail(err)
			}
			if len(rows) > 0 && st.Check.Severity != "warn" {
				return fail(fmt.Errorf("check %s failed", st.Check.Name))
			}
			continue
		}
		if _, err := s.Exec(ctx, st.SQL); err != nil && st.Purpose != adapters.Cleanup {
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
	s := &Session{x: x, d: NewDialect()}
	if err := runUnit(s, NewDialect().Recipe(testWrite("insert_overwrite"))); err != nil {
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
	s := &Session{x: x, d: NewDialect()}
	err := runUnit(s, NewDialect().Recipe(testWrite("delete_insert")))
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
	if n, err := s.Exec(context.Background(), NewDialect().Rollback()); n != 0 || err != nil {
		t.Errorf("rollback is a no-op on Spark: %d %v", n, err)
	}
	e := &Engine{}
	if !e.Retryable(errors.New("io.delta.exceptions.ConcurrentAppendException: Files were added")) {
		t.Error("a concurrent append must be retryable")
	}
}

// goKey is the key the spec gives for the parts.
var goKey = sqlgen.SurrogateKeyOf

func str(s string) *string { return &s }

// TestSurrogateKeyValue evaluates Spark's key expression unchanged in
// DuckDB (md5 as lowercase hex, char_length in characters, concat, CAST …
// AS STRING; dates as yyyy-MM-dd in both) and compares with the
// specification computed in Go.
func TestSurrogateKeyValue(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := NewDialect()
	for _, tc := range []struct {
		exprs []string
		want  string
	}{
		{[]string{"'shop'", "42", "DATE '2026-07-01'"}, goKey(str("shop"), str("42"), str("2026-07-01"))},
		{[]string{"NULL", "'x'"}, goKey(nil, str("x"))},
		{[]string{"'grüße'"}, goKey(str("grüße"))},
	} {
		var got string
		if err := db.QueryRow("SELECT " + d.SurrogateKey(tc.exprs)).Scan(&got); err != nil {
			t.Fatalf("%v: %v", tc.exprs, err)
		}
		if got != tc.want {
			t.Errorf("surrogate_key(%v) = %s, want %s", tc.exprs, got, tc.want)
		}
	}
}
