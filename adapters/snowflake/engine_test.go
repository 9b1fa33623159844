package snowflake

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sf "github.com/snowflakedb/gosnowflake"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/snowflake/dialect"
	"github.com/idemc/idemc/plan"
)

// runUnit executes a recipe on one session the way the runner does (DESIGN
// §2, runner/unit.go): prepare steps, the audit start, then BEGIN … COMMIT;
// validate and check steps are queries whose rows are failures, and a
// failure of severity error rolls back and runs the cleanups.
func runUnit(t *testing.T, s adapters.Session, steps []plan.Step) error {
	t.Helper()
	ctx := context.Background()
	inTx := false
	fail := func(err error) error {
		if inTx {
			_, _ = s.Exec(ctx, &plan.Step{Purpose: plan.Rollback, SQL: dialect.NewDialect().Rollback()})
		}
		for _, st := range steps {
			if st.Purpose == plan.Cleanup {
				_, _ = s.Exec(ctx, &st)
			}
		}
		return err
	}
	for _, st := range steps {
		switch st.Purpose {
		case plan.Validate, plan.CheckStep:
			res, err := s.Exec(ctx, &st)
			rows := res.Rows
			if err != nil {
				return fail(err)
			}
			if len(rows) > 0 && st.Check.Severity != "warn" {
				return fail(&checkFailed{st.Check.Name})
			}
			continue
		case plan.Lock:
			if _, err := s.Exec(ctx, &st); err != nil {
				return fail(err)
			}
			continue
		}
		if _, err := s.Exec(ctx, &st); err != nil {
			if st.Purpose == plan.Cleanup {
				continue
			}
			return fail(err)
		}
		switch st.Purpose {
		case plan.Begin:
			inTx = true
		case plan.Commit:
			inTx = false
		}
	}
	return nil
}

type checkFailed struct{ name string }

func (c *checkFailed) Error() string { return "check " + c.name + " failed" }

func openFake(t *testing.T, f *fakeSnowflake) (adapters.Engine, adapters.Session) {
	t.Helper()
	e, err := Open(context.Background(), f.settings())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	s, err := e.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return e, s
}

func partitionWrite() *plan.Write {
	w := dialecttest.DayWrite("delete_insert")
	w.Columns = []string{"EVENT_KEY", "EVENT_DATE", "AMOUNT"}
	w.Checks = append(w.Checks, dialecttest.MinRowsWarn())
	w.Audit = &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: "events_daily", Partition: "2026-07-02", Attempt: 2, CodeHash: "h1", Target: "snowflake"}
	return w
}

// sqls lists the statements' first words, for order assertions.
func heads(stmts []stmt) []string {
	out := make([]string, len(stmts))
	for i, s := range stmts {
		out[i] = head(s.SQL)
	}
	return out
}

func head(q string) string {
	up := strings.ToUpper(q)
	switch {
	case strings.HasPrefix(up, "MERGE INTO \"ANALYTICS\".\"IDEMC_LOCKS\""):
		return "CLAIM"
	case strings.HasPrefix(up, "DELETE FROM \"ANALYTICS\".\"IDEMC_LOCKS\""):
		return "RELEASE"
	}
	for _, p := range []string{"ALTER SESSION SET QUERY_TAG", "ALTER SESSION UNSET QUERY_TAG", "CREATE TABLE IF NOT EXISTS", "CREATE OR REPLACE TEMPORARY TABLE",
		"INSERT OVERWRITE", "INSERT INTO \"ANALYTICS\".\"IDEMC_AUDIT\"", "INSERT", "BEGIN TRANSACTION", "DELETE", "MERGE", "UPDATE \"ANALYTICS\".\"IDEMC_AUDIT\"",
		"SELECT", "COMMIT", "ROLLBACK", "DROP TABLE"} {
		if strings.HasPrefix(up, p) {
			switch p {
			case "INSERT INTO \"ANALYTICS\".\"IDEMC_AUDIT\"":
				return "AUDIT START"
			case "UPDATE \"ANALYTICS\".\"IDEMC_AUDIT\"":
				return "AUDIT FINISH"
			}
			return p
		}
	}
	return up
}

// noDDLInTransaction asserts Snowflake would not commit implicitly: nothing
// between BEGIN and COMMIT/ROLLBACK is DDL.
func noDDLInTransaction(t *testing.T, stmts []stmt) {
	t.Helper()
	in := false
	for _, s := range stmts {
		h := head(s.SQL)
		switch {
		case h == "BEGIN TRANSACTION":
			in = true
		case h == "COMMIT" || h == "ROLLBACK":
			in = false
		case in && (strings.HasPrefix(h, "CREATE") || strings.HasPrefix(h, "DROP") || strings.HasPrefix(h, "ALTER")):
			t.Errorf("DDL inside the transaction (Snowflake would commit it): %s", s.SQL)
		}
	}
}

func oneSession(t *testing.T, stmts []stmt) {
	t.Helper()
	for _, s := range stmts {
		if s.Session != stmts[0].Session {
			t.Fatalf("statements ran on two sessions (%s and %s): %s", stmts[0].Session, s.Session, s.SQL)
		}
	}
}

func TestEnginePartitionReplaceOneSession(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	f.reset()
	w := partitionWrite()
	if err := runUnit(t, s, dialect.NewDialect().Recipe(w)); err != nil {
		t.Fatal(err)
	}
	got := f.statements()
	want := []string{"ALTER SESSION SET QUERY_TAG", "CREATE TABLE IF NOT EXISTS", "AUDIT START", "CLAIM", "BEGIN TRANSACTION", "DELETE", "INSERT",
		"SELECT", "SELECT", "SELECT", "AUDIT FINISH", "COMMIT", "RELEASE", "ALTER SESSION UNSET QUERY_TAG"}
	if strings.Join(heads(got), " | ") != strings.Join(want, " | ") {
		t.Fatalf("statement order:\n got %s\nwant %s", strings.Join(heads(got), " | "), strings.Join(want, " | "))
	}
	oneSession(t, got)
	noDDLInTransaction(t, got)
	// Every statement of the unit after the tag carries the run id.
	for _, st := range got[1 : len(got)-1] {
		if !strings.Contains(st.Tag, `"idemc_run":"20260703T060000.000Z-cafe0001"`) {
			t.Errorf("statement without the run's QUERY_TAG (%q): %s", st.Tag, st.SQL)
		}
	}
	if del := got[5].SQL; !strings.Contains(del, `DELETE FROM "ANALYTICS"."EVENTS_DAILY" t`) || !strings.Contains(del, `t."EVENT_DATE" >= DATE '2026-07-02' AND t."EVENT_DATE" < DATE '2026-07-03'`) {
		t.Errorf("delete of the window: %s", del)
	}
}

func TestEngineLoginSettings(t *testing.T) {
	f := newFakeSnowflake(t)
	openFake(t, f)
	if len(f.logins) == 0 {
		t.Fatal("no login-request")
	}
	data, _ := f.logins[0]["data"].(map[string]any)
	for k, want := range map[string]string{"ACCOUNT_NAME": "testacct", "LOGIN_NAME": "idemc", "PASSWORD": "secret"} {
		if data[k] != want {
			t.Errorf("login %s = %v, want %q", k, data[k], want)
		}
	}
	params, _ := data["SESSION_PARAMETERS"].(map[string]any)
	for k, want := range map[string]string{"QUERY_TAG": "idemc", "TIMEZONE": "UTC", "DATE_OUTPUT_FORMAT": "YYYY-MM-DD", "AUTOCOMMIT": "true"} {
		if params[strings.ToLower(k)] != want && params[k] != want {
			t.Errorf("session parameter %s = %v, want %q (all: %v)", k, params[k], want, params)
		}
	}
}

func TestEngineRollbackAfterFailingCheck(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	f.answer = func(q string) ([]string, [][]string, string) {
		if strings.Contains(q, "HAVING count(*) > 1") { // unique(event_key) finds a duplicate
			return []string{"EVENT_KEY", "N"}, [][]string{{"k1", "2"}}, ""
		}
		return nil, nil, ""
	}
	f.reset()
	err := runUnit(t, s, dialect.NewDialect().Recipe(partitionWrite()))
	if err == nil || !strings.Contains(err.Error(), "unique(event_key)") {
		t.Fatalf("want the unique check to fail the unit, got %v", err)
	}
	got := f.statements()
	h := heads(got)
	joined := strings.Join(h, " | ")
	if strings.Contains(joined, "COMMIT") || strings.Contains(joined, "AUDIT FINISH") {
		t.Fatalf("a failed check must not commit: %s", joined)
	}
	if !strings.Contains(joined, "BEGIN TRANSACTION | DELETE | INSERT | SELECT | SELECT | ROLLBACK | RELEASE | ALTER SESSION UNSET QUERY_TAG") {
		t.Fatalf("want BEGIN … failing check, ROLLBACK, untag; got %s", joined)
	}
	oneSession(t, got)
}

func TestEngineMergeStagesBeforeBegin(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	f.reset()
	w := &plan.Write{
		Model: "dim_users", Materialized: plan.Incremental, Strategy: "merge",
		Target: plan.Relation{Schema: "analytics", Name: "dim_users"},
		Select: "SELECT user_id, name FROM raw.users", UniqueKey: []string{"user_id"},
		Columns: []string{"USER_ID", "NAME"},
		State:   partitionWrite().State,
		Audit:   &plan.AuditRow{RunID: "r9", Job: "dim_users", Attempt: 1},
	}
	if err := runUnit(t, s, dialect.NewDialect().Recipe(w)); err != nil {
		t.Fatal(err)
	}
	got := f.statements()
	want := "ALTER SESSION SET QUERY_TAG | CREATE TABLE IF NOT EXISTS | AUDIT START | CLAIM | CREATE OR REPLACE TEMPORARY TABLE | BEGIN TRANSACTION | SELECT | MERGE | AUDIT FINISH | COMMIT | DROP TABLE | RELEASE | ALTER SESSION UNSET QUERY_TAG"
	if j := strings.Join(heads(got), " | "); j != want {
		t.Fatalf("statement order:\n got %s\nwant %s", j, want)
	}
	noDDLInTransaction(t, got)
	oneSession(t, got)
	if m := got[7].SQL; !strings.Contains(m, `ON EQUAL_NULL(t."USER_ID", s."USER_ID")`) {
		t.Errorf("merge must match keys null-safely: %s", m)
	}
}

func TestEngineFullRebuildInsertOverwrite(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	f.reset()
	w := &plan.Write{
		Model: "user_summary", Materialized: plan.Table,
		Target: plan.Relation{Schema: "analytics", Name: "user_summary"},
		Select: "SELECT user_id, count(*) AS events FROM analytics.events GROUP BY user_id",
		Checks: []*plan.Check{{Name: "min_rows(1)", Kind: plan.CheckMinRows, Severity: "error", MinRows: 1}},
		State:  partitionWrite().State,
		Audit:  &plan.AuditRow{RunID: "r9", Job: "user_summary", Attempt: 1},
	}
	if err := runUnit(t, s, dialect.NewDialect().Recipe(w)); err != nil {
		t.Fatal(err)
	}
	got := f.statements()
	want := "ALTER SESSION SET QUERY_TAG | CREATE TABLE IF NOT EXISTS | AUDIT START | CLAIM | BEGIN TRANSACTION | INSERT OVERWRITE | SELECT | AUDIT FINISH | COMMIT | RELEASE | ALTER SESSION UNSET QUERY_TAG"
	if j := strings.Join(heads(got), " | "); j != want {
		t.Fatalf("statement order:\n got %s\nwant %s", j, want)
	}
	noDDLInTransaction(t, got)
}

func TestEngineExecCountsRows(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	n, err := adapters.ExecSQL(context.Background(), s, `INSERT INTO "T" SELECT 1`)
	if err != nil || n != 3 {
		t.Fatalf("insert affected %d, %v; want 3 (the fake's count)", n, err)
	}
	n, err = adapters.ExecSQL(context.Background(), s, `MERGE INTO "T" AS t USING "S" AS s ON EQUAL_NULL(t."K", s."K") WHEN MATCHED THEN DELETE`)
	if err != nil || n != 3 {
		t.Fatalf("merge affected %d, %v; want inserted + updated = 3", n, err)
	}
	f.answer = func(string) ([]string, [][]string, string) {
		return []string{"A", "B"}, [][]string{{"x", "NULL"}}, ""
	}
	cols, rows, err := s.Query(context.Background(), "SELECT 1", 5)
	if err != nil || len(rows) != 1 || cols[0] != "A" || rows[0][1] != "NULL" {
		t.Fatalf("query: %v %v %v", cols, rows, err)
	}
	f.answer = func(string) ([]string, [][]string, string) {
		return nil, nil, "SQL compilation error: invalid identifier 'X'"
	}
	if _, _, err := s.Query(context.Background(), "SELECT x", 5); err == nil || !strings.Contains(err.Error(), "invalid identifier") {
		t.Fatalf("want the server's error, got %v", err)
	}
}

func TestConfigKeyPair(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "key.p8")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Config(map[string]string{"account": "a", "user": "u", "private_key_path": path, "schema": "analytics"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Authenticator != sf.AuthTypeJwt || cfg.PrivateKey == nil || cfg.Password != "" {
		t.Fatalf("key-pair config: authenticator %v, key %v", cfg.Authenticator, cfg.PrivateKey != nil)
	}
	if cfg.Schema != "ANALYTICS" {
		t.Errorf("schema %q, want ANALYTICS (unquoted names are upper case)", cfg.Schema)
	}
	if _, err := Config(map[string]string{"account": "a", "user": "u"}); err == nil || !strings.Contains(err.Error(), "password or private_key_path") {
		t.Errorf("want an error naming the missing credential, got %v", err)
	}
	if _, err := Config(map[string]string{"user": "u", "password": "p"}); err == nil || !strings.Contains(err.Error(), "account") {
		t.Errorf("want an error naming account, got %v", err)
	}
}

// TestMinicoreOff: linking the driver must not make every idemc process
// write and load a shared library (see internal/nominicore).
func TestMinicoreOff(t *testing.T) {
	if v := os.Getenv("SF_DISABLE_MINICORE"); v == "" {
		t.Fatal("SF_DISABLE_MINICORE is not set before gosnowflake initializes")
	}
}

// TestEngineColumnsSpellNumbers: a query's FIXED columns are reported as
// Snowflake's NUMBER(p, s) (what SameType and the catalog compare), other
// types as the driver names them.
func TestEngineColumnsSpellNumbers(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	f.answer = func(string) ([]string, [][]string, string) {
		return []string{"ID:38:0", "AMOUNT:12:2", "NAME"}, nil, ""
	}
	cols, err := s.Columns(context.Background(), "SELECT id, amount, name FROM t LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]string, len(cols))
	for i, c := range cols {
		got[i] = c.Name + " " + c.Type
	}
	if want := "ID NUMBER(38, 0), AMOUNT NUMBER(12, 2), NAME TEXT"; strings.Join(got, ", ") != want {
		t.Fatalf("columns %s, want %s", strings.Join(got, ", "), want)
	}
}

// TestEngineNamesFromDriverAndCatalogKeepCase: a column the driver or the
// catalog reports in lower or mixed case (created quoted) is quoted as
// stored, never upper-cased into another column's name; one stored in
// upper case (created unquoted) stays as the model's unquoted name.
func TestEngineNamesFromDriverAndCatalogKeepCase(t *testing.T) {
	f := newFakeSnowflake(t)
	_, s := openFake(t, f)
	d := dialect.NewDialect()
	f.answer = func(q string) ([]string, [][]string, string) {
		if strings.Contains(q, "information_schema.columns") {
			return []string{"COLUMN_NAME", "TYPE"}, [][]string{{"EVENT_KEY", "TEXT"}, {"event_date", "DATE"}, {"Amount", "NUMBER(38, 0)"}}, ""
		}
		return []string{"EVENT_KEY", "event_date", "Amount"}, nil, ""
	}
	want := `"EVENT_KEY", "event_date", "Amount"`
	batch, err := s.Columns(context.Background(), "SELECT event_key, 1 AS \"event_date\", 2 AS \"Amount\" LIMIT 0")
	if err != nil {
		t.Fatal(err)
	}
	dest, ok, err := s.Relation(context.Background(), plan.Relation{Schema: "analytics", Name: "events"})
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	for what, cols := range map[string][]plan.Column{"driver": batch, "catalog": dest} {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.Name
		}
		if got := d.ColumnList(names, ""); got != want {
			t.Errorf("%s names quote as %s, want %s", what, got, want)
		}
	}
	if got := d.Quote("event_date"); got != `"EVENT_DATE"` {
		t.Errorf("a model's unquoted name quotes as %s, want \"EVENT_DATE\"", got)
	}
}
