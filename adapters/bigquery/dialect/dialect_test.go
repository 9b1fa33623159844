package dialect

import (
	"database/sql"
	"maps"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // evaluates the key expression offline

	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/plan"
)

func TestDialectSQL(t *testing.T) {
	d := NewDialect()
	w := partitionWrite("delete_insert")
	hour := time.Date(2026, 7, 2, 13, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ name, got, want string }{
		{"quote", d.Quote("event_date"), "`event_date`"},
		{"quote escapes a backtick", d.Quote("a`b"), "`a\\`b`"},
		{"three-part name (project)", d.Qualify(plan.Relation{Database: "my-proj", Schema: "marts", Name: "events"}), "`my-proj`.`marts`.`events`"},
		{"string escapes with backslashes", d.String("it's a\\b\nc"), `'it\'s a\\b\nc'`},
		{"date literal", d.WindowLiteral(hour, "day"), "DATE '2026-07-02'"},
		{"hour literal", d.WindowLiteral(hour, "hour"), "TIMESTAMP '2026-07-02 13:00:00'"},
		{"null-safe key match", d.KeyMatch([]string{"k"}, "t", "s"), "(t.`k` = s.`k` OR (t.`k` IS NULL AND s.`k` IS NULL))"},
		{"surrogate key", d.SurrogateKey([]string{"a"}), "TO_HEX(MD5(CASE WHEN a IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(a AS STRING)) AS STRING), ':', CAST(a AS STRING)) END))"},
		{"partition by day", d.PartitionExpr("event_date", "day"), "`event_date`"},
		{"partition by hour", d.PartitionExpr("ts", "hour"), "TIMESTAMP_TRUNC(`ts`, HOUR)"},
		{"partition by month", d.PartitionExpr("d", "month"), "DATE_TRUNC(`d`, MONTH)"},
		{"decorator day", Decorator(w.Window), "$20260702"},
		{"decorator hour", Decorator(&plan.Window{Start: hour, Granularity: "hour"}), "$2026070213"},
		{"decorator month", Decorator(&plan.Window{Start: hour, Granularity: "month"}), "$202607"},
		{"decorator year", Decorator(&plan.Window{Start: hour, Granularity: "year"}), "$2026"},
		{"rollback", d.Rollback(), "ROLLBACK TRANSACTION"},
		{"a scratch dataset is dropped with its tables", d.DropSchema("idemc_verify_x"), "DROP SCHEMA IF EXISTS `idemc_verify_x` CASCADE"},
		{"assert", d.Assert(w.Checks[0], w, "").SQL, "ASSERT NOT EXISTS (\nSELECT t.`event_key`, count(*) AS n FROM `analytics`.`events_daily` AS t\nWHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'\nGROUP BY t.`event_key`\nHAVING count(*) > 1\nLIMIT 5\n) AS 'idemc check unique(event_key)'"},
		{"add column spells API types", d.AddColumn(plan.Relation{Schema: "a", Name: "t"}, plan.Column{Name: "n", Type: "INTEGER"}), "ALTER TABLE `a`.`t` ADD COLUMN `n` INT64"},
		{"label value", LabelValue("20260703T060000.000Z-Cafe"), "20260703t060000_000z-cafe"},
		{"merge", d.Merge(&plan.Write{Target: plan.Relation{Schema: "a", Name: "d"}, UniqueKey: []string{"id"}, Columns: []string{"id", "name"}}, "`s`"),
			"MERGE INTO `a`.`d` AS t\nUSING `s` AS s\nON (t.`id` = s.`id` OR (t.`id` IS NULL AND s.`id` IS NULL))\nWHEN MATCHED THEN UPDATE SET `name` = s.`name`\nWHEN NOT MATCHED THEN INSERT (`id`, `name`) VALUES (s.`id`, s.`name`)"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	ddl := d.StateDDL(w.State)
	if !strings.Contains(ddl[1], "run_id STRING NOT NULL") || !strings.Contains(ddl[1], "row_count INT64") || !strings.Contains(ddl[1], "started_at TIMESTAMP") {
		t.Errorf("audit DDL: %s", ddl[1])
	}
	want := map[string]string{"idemc_attempt": "2", "idemc_model": "events_daily", "idemc_partition": "2026-07-02", "idemc_run": "20260703t060000_000z-cafe0001"}
	for _, s := range d.Recipe(w) {
		if s.Job == nil || !maps.Equal(s.Job.Labels, want) {
			t.Errorf("step %s: job %+v, want the labels %v", s.Purpose, s.Job, want)
		}
	}
}

func TestRecipeShapes(t *testing.T) {
	d := NewDialect()
	base := partitionWrite("delete_insert")
	view := *base
	view.Materialized, view.Strategy, view.Window, view.PartitionBy = plan.View, "", nil, ""
	table := view
	table.Materialized = plan.Table
	merge := *base
	merge.Strategy, merge.Window, merge.PartitionBy, merge.UniqueKey = "merge", nil, "", []string{"event_key"}
	merge.Watermark = &plan.WatermarkWrite{Column: "updated_at"}
	overwrite := *base
	overwrite.Strategy = "insert_overwrite"
	for _, tc := range []struct {
		name string
		w    *plan.Write
		want string
	}{
		{"partition: one script", base, "prepare audit_start lock begin delete insert validate check audit_finish commit check cleanup"},
		{"merge: staged, then one script", &merge, "prepare audit_start lock stage validate begin merge check state state audit_finish commit check cleanup cleanup"},
		{"insert_overwrite: stage, check, publish", &overwrite, "prepare audit_start lock stage validate check check publish audit_finish cleanup cleanup"},
		{"table: TRUNCATE + INSERT in one script", &table, "prepare audit_start lock begin delete insert check audit_finish commit check cleanup"},
		{"view: checks on the published view", &view, "audit_start lock publish check check audit_finish cleanup"},
	} {
		if got := dialecttest.Purposes(d.Recipe(tc.w)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestSurrogateKeyValue evaluates BigQuery's key expression in DuckDB. The
// only translation is TO_HEX(MD5(x)) → md5(x): BigQuery's MD5 returns the
// 16 digest bytes and TO_HEX their lowercase hex, which is what DuckDB's
// md5 returns. CAST(… AS STRING), LENGTH (characters) and CONCAT mean the
// same in both, and a DATE casts to YYYY-MM-DD in both.
func TestSurrogateKeyValue(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dialecttest.SurrogateKeys(t, db, NewDialect(), func(expr string) string {
		if !strings.HasPrefix(expr, "TO_HEX(MD5(") || !strings.HasSuffix(expr, "))") {
			t.Fatalf("unexpected shape: %s", expr)
		}
		return "md5(" + strings.TrimSuffix(strings.TrimPrefix(expr, "TO_HEX(MD5("), ")")
	})
}

// partitionWrite is one day of a model (the engine's tests have the same).
func partitionWrite(strategy string) *plan.Write {
	w := dialecttest.DayWrite(strategy)
	w.Select = "SELECT event_key, event_date, amount FROM `raw`.`events` WHERE event_date >= DATE '2026-07-02' AND event_date < DATE '2026-07-03'"
	w.Checks = append(w.Checks, dialecttest.MinRowsWarn())
	w.State = testState()
	w.Audit = &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: "events_daily", Partition: "2026-07-02", Attempt: 2, CodeHash: "h1", Target: "bigquery"}
	return w
}

func testState() plan.State {
	return plan.StateIn("analytics")
}
