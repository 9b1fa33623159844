package dialect

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2" // evaluates the key expression offline

	"github.com/idemc/idemc/adapters/dialecttest"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

func testWrite(strategy string) *plan.Write { return dialecttest.DayWrite(strategy) }

func TestDialectSQL(t *testing.T) {
	d := NewDialect()
	w := testWrite("delete_insert")
	stage := "`analytics`.`" + StageRelation(w).Name + "`"
	for _, tc := range []struct{ name, got, want string }{
		{"quote", d.Quote("a`b"), "`a``b`"},
		{"three-part name (catalog)", d.Qualify(plan.Relation{Database: "main", Schema: "marts", Name: "events"}), "`main`.`marts`.`events`"},
		{"string escapes with backslashes", d.String(`it's \`), `'it\'s \\'`},
		{"timestamp", d.Timestamp(time.Date(2026, 7, 2, 13, 0, 0, 0, time.UTC)), "TIMESTAMP '2026-07-02 13:00:00'"},
		{"null-safe key match", d.KeyMatch([]string{"k"}, "t", "s"), "t.`k` <=> s.`k`"},
		{"surrogate key", d.SurrogateKey([]string{"a"}), "md5(CASE WHEN a IS NULL THEN '~' ELSE concat(CAST(char_length(CAST(a AS STRING)) AS STRING), ':', CAST(a AS STRING)) END)"},
		{"fingerprint (verify): hex digits through conv, not a '0x' cast", d.Fingerprint(plan.Relation{Schema: "a", Name: "t"}, "", []string{"k"}),
			"SELECT count(*) AS n, coalesce(sum(CAST(conv(substr(md5(coalesce(CAST(t.`k` AS STRING), '~')), 1, 8), 16, 10) AS BIGINT)), 0) AS h FROM `a`.`t` AS t"},
		{"stage name", StageRelation(w).Name, fmt.Sprintf("events_daily__idemc_stage_20260702_%08x", sqlgen.Hash32("r1"))},
		{"unique check reads the stage", d.StageCheck(w.Checks[0], &plan.Write{Target: StageRelation(w), Window: w.Window, PartitionBy: w.PartitionBy, Materialized: plan.Incremental}),
			"SELECT t.`event_key`, count(*) AS n FROM " + stage + " AS t\nWHERE t.`event_date` >= DATE '2026-07-02' AND t.`event_date` < DATE '2026-07-03'\nGROUP BY t.`event_key`\nHAVING count(*) > 1\nLIMIT 5"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, tc.got, tc.want)
		}
	}
	steps := d.Recipe(w)
	var publish string
	for _, s := range steps {
		if s.Purpose == plan.Insert {
			publish = s.SQL
		}
	}
	if want := "INSERT INTO `analytics`.`events_daily`\nREPLACE WHERE `event_date` >= DATE '2026-07-02' AND `event_date` < DATE '2026-07-03'\nSELECT `event_key`, `event_date`, `amount` FROM " + stage; publish != want {
		t.Errorf("publish:\n got %s\nwant %s", publish, want)
	}
	if ddl := d.StateDDL(w.State); !strings.HasSuffix(ddl[1], ") USING DELTA PARTITIONED BY (job_name)") {
		t.Errorf("audit table must be Delta: %s", ddl[1])
	}
}

func TestRecipeShapes(t *testing.T) {
	d := NewDialect()
	base := testWrite("delete_insert")
	view := *base
	view.Materialized, view.Strategy, view.Window, view.PartitionBy = plan.View, "", nil, ""
	table := view
	table.Materialized = plan.Table
	merge := *base
	merge.Strategy, merge.Window, merge.PartitionBy, merge.UniqueKey = "merge", nil, "", []string{"event_key"}
	merge.Watermark = &plan.WatermarkWrite{Column: "updated_at"}
	byKey := merge
	byKey.Strategy, byKey.Watermark = "delete_insert", nil
	for _, tc := range []struct {
		name string
		w    *plan.Write
		want string
	}{
		{"partition: stage, verify, REPLACE WHERE", base, "prepare audit_start lock stage validate check publish publish insert cleanup cleanup audit_finish cleanup cleanup"},
		{"merge: stage, verify, MERGE, mark", &merge, "prepare audit_start lock stage validate check publish publish merge cleanup cleanup state audit_finish cleanup cleanup"},
		{"delete_insert by key: one MERGE", &byKey, "prepare audit_start lock stage validate check publish publish merge cleanup cleanup audit_finish cleanup cleanup"},
		{"table: stage, verify, CREATE OR REPLACE", &table, "audit_start lock stage check publish audit_finish cleanup cleanup"},
		{"view: checks on the published view", &view, "audit_start lock publish check audit_finish cleanup"},
	} {
		var ps []string
		for _, s := range d.Recipe(tc.w) {
			ps = append(ps, string(s.Purpose))
			if s.Purpose == plan.Begin || s.Purpose == plan.Commit {
				t.Errorf("%s: Spark has no transactions, yet the recipe has %s", tc.name, s.Purpose)
			}
		}
		if got := strings.Join(ps, " "); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
	// A view follows its upstreams' column types (found live: a view
	// bound to BIGINT failed every read once the column became STRING).
	for _, s := range d.Recipe(&view) {
		if s.Purpose == plan.Publish && !strings.HasPrefix(s.SQL, "CREATE OR REPLACE VIEW `analytics`.`events_daily` WITH SCHEMA EVOLUTION AS\n") {
			t.Errorf("a view must evolve with its upstreams' schema: %s", s.SQL)
		}
	}
	for _, s := range d.Recipe(&byKey) {
		if s.Purpose == plan.Merge && (!strings.Contains(s.SQL, "WHEN MATCHED THEN DELETE") || !strings.Contains(s.SQL, "t.`event_key` <=> s.`event_key` AND s.idemc_op = 'delete'")) {
			t.Errorf("delete_insert by key must be one null-safe MERGE: %s", s.SQL)
		}
	}
}

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
	dialecttest.SurrogateKeys(t, db, NewDialect(), nil)
}

// TestPublishNamesColumns: every publish writes each batch column into the
// destination column of its name. Spark's INSERT matches by position, so
// a model whose columns are reordered, or that gained a column that is
// not last in the table (append_new_columns adds it last), used to swap
// values; REPLACE WHERE takes no column list, so it selects in the
// destination's order, NULL for a column the batch lacks.
func TestPublishNamesColumns(t *testing.T) {
	d := NewDialect()
	publish := func(strategy string, edit func(w *plan.Write)) string {
		w := testWrite(strategy)
		w.Columns = []string{"amount", "event_key", "event_date", "added"} // the model's order
		w.TargetColumns = []string{"event_key", "event_date", "amount", "old", "added"}
		if edit != nil {
			edit(w)
		}
		for _, s := range d.Recipe(w) {
			if s.Purpose == plan.Insert || s.Purpose == plan.Merge {
				return s.SQL
			}
		}
		t.Fatalf("%s: no publish step", strategy)
		return ""
	}
	named := "(`event_key`, `event_date`, `amount`, `added`)\nSELECT `event_key`, `event_date`, `amount`, `added` FROM "
	for _, tc := range []struct{ name, got, want string }{
		{"partition replace selects in the table's order", publish("delete_insert", nil),
			"\nSELECT `event_key`, `event_date`, `amount`, NULL AS `old`, `added` FROM "},
		{"partition append names its columns", publish("append", nil), "INSERT INTO `analytics`.`events_daily` " + named},
		{"full refresh names its columns", publish("delete_insert", func(w *plan.Write) { w.Window, w.PartitionBy, w.FullRefresh = nil, "", true }),
			"INSERT OVERWRITE TABLE `analytics`.`events_daily` " + named},
		{"unpartitioned append names its columns", publish("append", func(w *plan.Write) { w.Window, w.PartitionBy = nil, "" }),
			"INSERT INTO `analytics`.`events_daily` " + named},
		{"delete_insert by key inserts the table's columns by name", publish("delete_insert", func(w *plan.Write) { w.Window, w.PartitionBy, w.UniqueKey = nil, "", []string{"event_key"} }),
			"INSERT (`event_key`, `event_date`, `amount`, `added`) VALUES (s.`event_key`, s.`event_date`, s.`amount`, s.`added`)"},
	} {
		if !strings.Contains(tc.got, tc.want) {
			t.Errorf("%s:\n got %s\nwant it to contain %s", tc.name, tc.got, tc.want)
		}
	}
}

// TestTxnAppID: the idempotent-write id is readable and names the run,
// the table and the partition (it was a 32-bit hash: two units sharing
// one would skip a publish); an append's names its inputs instead of the
// run, with version 1, so that the redo of a crashed run (same inputs,
// next attempt) is skipped instead of appending the batch again.
func TestTxnAppID(t *testing.T) {
	w := testWrite("delete_insert")
	w.Audit.Inputs = "abc123"
	if got, want := TxnAppID(w), "idemc:r1:analytics.events_daily:2026-07-02"; got != want {
		t.Errorf("replace: %s, want %s", got, want)
	}
	if TxnVersion(w) != 3 {
		t.Errorf("replace: version %d, want the attempt 3", TxnVersion(w))
	}
	redo := testWrite("append")
	redo.Audit.Inputs = "abc123"
	crashed := testWrite("append")
	crashed.Audit.Inputs, crashed.Audit.RunID, crashed.Audit.Attempt = "abc123", "r0", 2
	if TxnAppID(redo) != TxnAppID(crashed) || TxnVersion(redo) != TxnVersion(crashed) {
		t.Errorf("an append's redo must repeat the crashed attempt's id and version: %s/%d vs %s/%d", TxnAppID(redo), TxnVersion(redo), TxnAppID(crashed), TxnVersion(crashed))
	}
	if want := "idemc:analytics.events_daily:2026-07-02:inputs=abc123"; TxnAppID(redo) != want {
		t.Errorf("append: %s, want %s", TxnAppID(redo), want)
	}
	changed := testWrite("append")
	changed.Audit.Inputs = "def456"
	if TxnAppID(changed) == TxnAppID(redo) {
		t.Error("new inputs must append: a new id")
	}
}

// TestStageRun: the runner recognizes a destination's stages, and the run
// hash they end with, to drop those of dead runs.
func TestStageRun(t *testing.T) {
	d := NewDialect()
	w := testWrite("delete_insert")
	name := StageRelation(w).Name
	if tag, ok := d.StageRun("events_daily", name); !ok || tag != d.RunTag("r1") {
		t.Errorf("StageRun(%s) = %q %v, want %q", name, tag, ok, d.RunTag("r1"))
	}
	// A seed load's table of run r1 (RunSeedLoad): a load killed with its
	// run is dropped by the next (it was left forever: a fault trial
	// found raw.events__idemc_new_81df9c46 after the recovery).
	seed := d.RunSeedLoad(plan.Relation{Schema: "raw", Name: "events"}, &seed.Table{}, d.RunTag("r1")).Aside.Name
	if tag, ok := d.StageRun("events", seed); !ok || tag != d.RunTag("r1") {
		t.Errorf("StageRun(%s) = %q %v, want %q", seed, tag, ok, d.RunTag("r1"))
	}
	for _, n := range []string{"events_daily", "events_daily_2__idemc_stage_x_" + d.RunTag("r1"), "events_daily__idemc_stage_zz",
		"events_daily__idemc_new", "events_daily__idemc_new_zz"} {
		if _, ok := d.StageRun("events_daily", n); ok {
			t.Errorf("%s is not a stage of events_daily", n)
		}
	}
}
