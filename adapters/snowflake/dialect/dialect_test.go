package dialect

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // evaluates the key expression offline

	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/plan"
)

func TestDialectSQL(t *testing.T) {
	d := NewDialect()
	w := partitionWrite()
	hour := time.Date(2026, 7, 2, 13, 0, 0, 0, time.UTC)
	for _, tc := range []struct{ name, got, want string }{
		{"quote folds a simple name", d.Quote("event_date"), `"EVENT_DATE"`},
		{"quote keeps a reserved word quoted", d.Quote("select"), `"SELECT"`},
		{"quote keeps other names exact", d.Quote(`my "odd" col`), `"my ""odd"" col"`},
		{"quote keeps lowercase-with-dash exact", d.Quote("raw-data"), `"raw-data"`},
		{"three-part name", d.Qualify(plan.Relation{Database: "analytics_db", Schema: "marts", Name: "events"}), `"ANALYTICS_DB"."MARTS"."EVENTS"`},
		{"string escapes quote and backslash", d.String(`it's a\b`), `'it''s a\\b'`},
		{"date literal", d.WindowLiteral(hour, "day"), `DATE '2026-07-02'`},
		{"hour literal", d.WindowLiteral(hour, "hour"), `'2026-07-02 13:00:00'::TIMESTAMP_NTZ`},
		{"timestamp with micros", d.Timestamp(hour.Add(1500 * time.Microsecond)), `'2026-07-02 13:00:00.0015'::TIMESTAMP_NTZ`},
		{"null-safe key match", d.KeyMatch([]string{"k1", "k2"}, "t", "s"), `EQUAL_NULL(t."K1", s."K1") AND EQUAL_NULL(t."K2", s."K2")`},
		{"delete of the window", d.DeleteRegion(w, ""), "DELETE FROM \"ANALYTICS\".\"EVENTS_DAILY\" t\nWHERE t.\"EVENT_DATE\" >= DATE '2026-07-02' AND t.\"EVENT_DATE\" < DATE '2026-07-03'"},
		{"surrogate key", d.SurrogateKey([]string{"a", "b"}),
			`MD5(CONCAT(CASE WHEN a IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(a AS VARCHAR)) AS VARCHAR), ':', CAST(a AS VARCHAR)) END, '|', CASE WHEN b IS NULL THEN '~' ELSE CONCAT(CAST(LENGTH(CAST(b AS VARCHAR)) AS VARCHAR), ':', CAST(b AS VARCHAR)) END))`},
		{"merge", d.Merge(&plan.Write{Target: plan.Relation{Schema: "a", Name: "d"}, UniqueKey: []string{"id"}, Columns: []string{"ID", "NAME"}}, `"S"`),
			"MERGE INTO \"A\".\"D\" AS t\nUSING \"S\" AS s\nON EQUAL_NULL(t.\"ID\", s.\"ID\")\nWHEN MATCHED THEN UPDATE SET \"NAME\" = s.\"NAME\"\nWHEN NOT MATCHED THEN INSERT (\"ID\", \"NAME\") VALUES (s.\"ID\", s.\"NAME\")"},
		{"unique check on the window", d.CheckQuery(w.Checks[0], w, false),
			"SELECT t.\"EVENT_KEY\", count(*) AS n FROM \"ANALYTICS\".\"EVENTS_DAILY\" AS t\nWHERE t.\"EVENT_DATE\" >= DATE '2026-07-02' AND t.\"EVENT_DATE\" < DATE '2026-07-03'\nGROUP BY t.\"EVENT_KEY\"\nHAVING count(*) > 1\nLIMIT 5"},
		{"audit finish", d.AuditFinish(w.State, &plan.AuditRow{RunID: "r", Job: "j", Partition: "p", Status: "failed", Error: "bad 'x'"}, ""),
			"UPDATE \"ANALYTICS\".\"IDEMC_AUDIT\" SET status = 'failed', row_count = NULL, ended_at = NULL, error = 'bad ''x''', checks = NULL\nWHERE run_id = 'r' AND job_name = 'j' AND partition_key = 'p'"},
		{"columns query folds names", d.ColumnsQuery(plan.Relation{Schema: "analytics", Name: "events_daily"}),
			"SELECT column_name, CASE WHEN data_type = 'NUMBER' THEN 'NUMBER(' || numeric_precision || ', ' || numeric_scale || ')' ELSE data_type END FROM information_schema.columns WHERE table_schema = 'ANALYTICS' AND table_name = 'EVENTS_DAILY' ORDER BY ordinal_position"},
		{"add column maps driver types", d.AddColumn(plan.Relation{Schema: "a", Name: "t"}, plan.Column{Name: "n", Type: "FIXED"}), `ALTER TABLE "A"."T" ADD COLUMN "N" NUMBER(38, 0)`},
		{"query tag", QueryTag(w), `{"idemc_run":"20260703T060000.000Z-cafe0001","model":"events_daily","partition":"2026-07-02","attempt":2}`},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	ddl := d.StateDDL(w.State)
	if len(ddl) != 4 || !strings.Contains(ddl[3], `"ANALYTICS"."IDEMC_RUNS"`) || ddl[0] != `CREATE SCHEMA IF NOT EXISTS "ANALYTICS"` || !strings.Contains(ddl[1], `CREATE TABLE IF NOT EXISTS "ANALYTICS"."IDEMC_AUDIT"`) || !strings.Contains(ddl[1], "started_at TIMESTAMP_NTZ") {
		t.Errorf("state DDL: %q", ddl)
	}
}

// TestRecipeShapes checks each materialization's statement order: no DDL
// between BEGIN TRANSACTION and COMMIT.
func TestRecipeShapes(t *testing.T) {
	d := NewDialect()
	base := partitionWrite()
	view := *base
	view.Materialized, view.Strategy, view.Window, view.PartitionBy = plan.View, "", nil, ""
	table := view
	table.Materialized = plan.Table
	merge := *base
	merge.Strategy, merge.Window, merge.PartitionBy, merge.UniqueKey = "merge", nil, "", []string{"event_key"}
	overwrite := *base
	overwrite.Strategy = "insert_overwrite"
	for _, tc := range []struct {
		name string
		w    *plan.Write
		want string
	}{
		{"partition", base, "prepare prepare audit_start lock begin delete insert validate check check audit_finish commit cleanup cleanup"},
		{"insert_overwrite is delete+insert", &overwrite, "prepare prepare audit_start lock begin delete insert validate check check audit_finish commit cleanup cleanup"},
		{"merge", &merge, "prepare prepare audit_start lock stage begin validate merge check check audit_finish commit cleanup cleanup cleanup"},
		{"table", &table, "prepare prepare audit_start lock begin publish check check audit_finish commit cleanup cleanup"},
		{"view: checks on the published view", &view, "prepare audit_start lock publish check check audit_finish cleanup cleanup"},
	} {
		if got := dialecttest.Purposes(d.Recipe(tc.w)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestSurrogateKeyValue evaluates Snowflake's key expression — MD5, CONCAT,
// LENGTH and CAST(… AS VARCHAR), which DuckDB spells and computes alike
// (md5 as lowercase hex, LENGTH in characters, dates as YYYY-MM-DD) — and
// compares it with the specification computed in Go.
func TestSurrogateKeyValue(t *testing.T) {
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dialecttest.SurrogateKeys(t, db, NewDialect(), nil)
}

// partitionWrite is one day of a delete+insert model (the engine's tests
// have the same).
func partitionWrite() *plan.Write {
	w := dialecttest.DayWrite("delete_insert")
	w.Columns = []string{"EVENT_KEY", "EVENT_DATE", "AMOUNT"}
	w.Checks = append(w.Checks, dialecttest.MinRowsWarn())
	w.Audit = &plan.AuditRow{RunID: "20260703T060000.000Z-cafe0001", Job: "events_daily", Partition: "2026-07-02", Attempt: 2, CodeHash: "h1", Target: "snowflake"}
	return w
}
