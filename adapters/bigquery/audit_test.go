package bigquery

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// auditProject is one partitioned model with two error checks, targeting
// BigQuery.
func auditProject(t *testing.T) *project.Project {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": "name = \"audit\"\ndefault_target = \"bq\"\n[targets.bq]\nengine = \"bigquery\"\nproject = \"proj\"\nschema = \"analytics\"\n[sources.raw]\nschema = \"raw\"\ntables = [\"events\"]\n",
		"models/events_daily.sql": `/* idemc
materialized = "incremental"
strategy     = "delete_insert"
partition_by = "event_date"
start        = "2026-07-02"

[checks]
not_null = ["amount"]
unique   = ["event_key"]
*/
SELECT event_key, event_date, amount FROM {{ source("raw", "events") }}
WHERE event_date >= {{ start }} AND event_date < {{ end }}`,
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// onFake makes the registered bigquery engine open the fake server.
func onFake(t *testing.T, f *fakeBigQuery) {
	ad, _ := adapters.Lookup("bigquery")
	open := ad.Open
	ad.Open = func(context.Context, map[string]string) (adapters.Engine, error) { return f.engine(t, "EU"), nil }
	t.Cleanup(func() { ad.Open = open })
}

var (
	assertName = regexp.MustCompile(`AS 'idemc check ([^']*)'`)
	// The failed row's checks, a JSON list (append-only: a row of its own).
	checksLit = regexp.MustCompile(`INSERT INTO .*'failed'.*'(\[\{(?:[^'\\]|\\.)*)'`)
)

// TestScriptCheckOutcomesInTheAuditRow: the runner records each check a
// BigQuery script buffers as an ASSERT by what the script did. When the
// script stops on one, the unit fails, and its audit row says that check
// failed, by name, and the ones before it passed (every error check used
// to be recorded pass, the one that failed the unit included); when the
// script commits, every check passed.
func TestScriptCheckOutcomesInTheAuditRow(t *testing.T) {
	for _, failing := range []bool{true, false} {
		f := newFakeBigQuery(t)
		onFake(t, f)
		var last string // the script's last ASSERT's check: it fails
		f.fail = func(sql string) string {
			if !failing || !strings.HasPrefix(sql, "BEGIN TRANSACTION") {
				return ""
			}
			m := assertName.FindAllStringSubmatch(sql, -1)
			last = m[len(m)-1][1]
			return "Query error: idemc check " + last + " at [12:1]"
		}
		var out strings.Builder
		res, err := runner.Build(context.Background(), auditProject(t), runner.Options{Out: &out,
			Compile: compiler.Options{Start: "2026-07-02", End: "2026-07-03", Models: true}})
		if failing {
			if len(res.Units) != 1 || res.Units[0].Status != runner.StatusFailed || !strings.Contains(res.Units[0].Error, "check "+last+" failed") {
				t.Fatalf("want the unit failed by check %s, got %+v (%v)\n%s", last, res.Units, err, out.String())
			}
			var checks []runner.CheckResult
			for _, j := range f.submitted() {
				if m := checksLit.FindStringSubmatch(strings.ReplaceAll(j.SQL, "\n", " ")); m != nil {
					if err := json.Unmarshal([]byte(strings.NewReplacer(`\'`, `'`, `\\`, `\`).Replace(m[1])), &checks); err != nil {
						t.Fatal(err)
					}
				}
			}
			if len(checks) != 3 { // not_null(event_date) of the partition, not_null(amount), unique(event_key)
				t.Fatalf("the failed audit row records %d checks, want 3: %+v", len(checks), checks)
			}
			for _, c := range checks {
				want := runner.CheckPass
				if c.Name == last {
					want = runner.CheckFail
				}
				if c.Status != want {
					t.Errorf("check %s recorded %s in the failed audit row, want %s", c.Name, c.Status, want)
				}
			}
			continue
		}
		if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
			t.Fatalf("want the unit succeeded, got %+v (%v)", res.Units, err)
		}
		for _, c := range res.Units[0].Checks {
			if c.Status != runner.CheckPass {
				t.Errorf("check %s: %s after the script committed, want pass", c.Name, c.Status)
			}
		}
		var script string
		for _, j := range f.submitted() {
			if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
				script = j.SQL
			}
		}
		if !strings.Contains(script, `"status":"pass"`) || strings.Contains(script, `"status":"deferred"`) {
			t.Errorf("the script's own audit row must record its checks passed:\n%s", script)
		}
	}
}

// TestConflictingScriptRetriedWithinBudget: a script BigQuery aborts for a
// concurrent update is retried, with a new job id, until it commits, more
// often than the 4 attempts of an engine without a budget (waits shortened
// for the test; the budget itself is TestBackoff's).
func TestConflictingScriptRetriedWithinBudget(t *testing.T) {
	f := newFakeBigQuery(t)
	ad, _ := adapters.Lookup("bigquery")
	open := ad.Open
	ad.Open = func(context.Context, map[string]string) (adapters.Engine, error) {
		e := f.engine(t, "EU")
		e.retryFirst = time.Millisecond
		return e, nil
	}
	t.Cleanup(func() { ad.Open = open })
	conflicts := 0
	f.fail = func(sql string) string {
		if strings.HasPrefix(sql, "BEGIN TRANSACTION") && conflicts < 6 {
			conflicts++
			return "Transaction is aborted due to concurrent update against table proj:analytics.events_daily."
		}
		return ""
	}
	var out strings.Builder
	res, err := runner.Build(context.Background(), auditProject(t), runner.Options{Out: &out,
		Compile: compiler.Options{Start: "2026-07-02", End: "2026-07-03", Models: true}})
	if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
		t.Fatalf("want the unit succeeded after 6 conflicts, got %+v (%v)\n%s", res.Units, err, out.String())
	}
	ids := map[string]bool{}
	for _, j := range f.submitted() {
		if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
			ids[j.ID] = true
		}
	}
	if len(ids) != 7 {
		t.Errorf("%d distinct script jobs, want 7 (6 aborted, 1 committed)", len(ids))
	}
	if !strings.Contains(res.Units[0].Note, "retried after a conflict") {
		t.Errorf("note %q, want the retry said", res.Units[0].Note)
	}
}

// TestScriptUnitReportsItsRows: a unit written by one script reports the
// rows its INSERT affected, read from the script's child jobs (the DELETE
// and the audit updates of the same script are not the unit's rows); it
// reported 0 before.
func TestScriptUnitReportsItsRows(t *testing.T) {
	f := newFakeBigQuery(t)
	onFake(t, f)
	f.affected = func(stmt string) int64 {
		switch {
		case strings.HasPrefix(stmt, "INSERT"):
			return 42
		case strings.HasPrefix(stmt, "DELETE"):
			return 7
		}
		return 1
	}
	var out strings.Builder
	res, err := runner.Build(context.Background(), auditProject(t), runner.Options{Out: &out,
		Compile: compiler.Options{Start: "2026-07-02", End: "2026-07-03", Models: true}})
	if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
		t.Fatalf("want the unit succeeded, got %+v (%v)\n%s", res.Units, err, out.String())
	}
	if got := res.Units[0].Rows; got != 42 {
		t.Errorf("the unit reports %d rows, want the INSERT's 42\n%s", got, out.String())
	}
}

// TestReorderedTableModelPublishesByName: a table model whose columns are
// in another order than the table's is rebuilt, in its script, by
// TRUNCATE and an INSERT naming the columns, each filled from the batch's
// column of that name (by position, amount's values would land in
// event_key and event_key's in amount).
func TestReorderedTableModelPublishesByName(t *testing.T) {
	f := newFakeBigQuery(t)
	onFake(t, f)
	f.tables["analytics.totals"] = []string{"amount:NUMERIC", "event_key:STRING"} // the table as it is
	f.rows = func(sql string) ([]string, [][]string) {
		switch {
		case strings.Contains(sql, "table_type") && strings.Contains(sql, "WHERE"):
			return []string{"table_type"}, [][]string{{"BASE TABLE"}}
		case strings.Contains(sql, "INFORMATION_SCHEMA.TABLES"):
			return []string{"table_schema", "table_name", "table_type"}, [][]string{{"analytics", "totals", "BASE TABLE"}}
		}
		return []string{"x"}, nil
	}
	p := auditProject(t)
	if err := os.WriteFile(filepath.Join(p.Root, "models", "events_daily.sql"), []byte("/* idemc\nmaterialized = \"table\"\nalias = \"totals\"\n*/\nSELECT event_key, amount FROM {{ source(\"raw\", \"events\") }}"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := project.Load(p.Root)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := runner.Build(context.Background(), p, runner.Options{Out: &out, Compile: compiler.Options{Models: true}})
	if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
		t.Fatalf("want the unit succeeded, got %+v (%v)\n%s", res.Units, err, out.String())
	}
	var script string
	for _, j := range f.submitted() {
		if strings.HasPrefix(j.SQL, "BEGIN TRANSACTION") {
			script = j.SQL
		}
	}
	want := "INSERT INTO `analytics`.`totals` (`event_key`, `amount`)\nSELECT `event_key`, `amount` FROM ("
	if !strings.Contains(script, "TRUNCATE TABLE `analytics`.`totals`") || !strings.Contains(script, want) {
		t.Fatalf("the rebuild does not fill the columns by name:\n%s\nwant\n%s", script, want)
	}
}

// TestAuditRowsAreAppendOnly: no job of a build updates the shared audit
// table, whose concurrent UPDATEs conflict and are cancelled on BigQuery
// (every unit's script updated it, issue 12); a unit's end is a row of its
// own, with its status and its row count, counted in the script.
func TestAuditRowsAreAppendOnly(t *testing.T) {
	f := newFakeBigQuery(t)
	onFake(t, f)
	res, err := runner.Build(context.Background(), auditProject(t), runner.Options{Out: &strings.Builder{},
		Compile: compiler.Options{Start: "2026-07-02", End: "2026-07-04", Models: true}})
	if err != nil || !res.OK() {
		t.Fatalf("build: %v %+v", err, res)
	}
	finals := 0
	for _, j := range f.submitted() {
		q := strings.ToUpper(j.SQL)
		if strings.Contains(q, "UPDATE `ANALYTICS`.`IDEMC_AUDIT`") {
			t.Errorf("a job updates the audit table:\n%s", j.SQL)
		}
		if strings.Contains(q, "INSERT INTO `ANALYTICS`.`IDEMC_AUDIT`") && strings.Contains(q, "'SUCCEEDED', (SELECT COUNT(*)") {
			finals++
		}
	}
	if finals != 2 {
		t.Errorf("%d final audit rows with their count, want one per partition (2)", finals)
	}
}
