package adapters_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/bigquery"
	"github.com/idemc/idemc/adapters/dialecttest"
	_ "github.com/idemc/idemc/adapters/duckdb"
	_ "github.com/idemc/idemc/adapters/mysql"
	_ "github.com/idemc/idemc/adapters/postgres"
	_ "github.com/idemc/idemc/adapters/snowflake"
	_ "github.com/idemc/idemc/adapters/spark"
)

// TestSchemaChangeGolden prints, for every engine, the DDL of
// on_schema_change (add, drop, retype in place, drop to recreate) and the
// recipes of a full rebuild whose column types changed, and compares them
// with testdata/schema/<engine>.sql (go test ./adapters -update rewrites).
func TestSchemaChangeGolden(t *testing.T) {
	for _, name := range adapters.Names() {
		ad, _ := adapters.Lookup(name)
		t.Run(name, func(t *testing.T) {
			dialecttest.Golden(t, filepath.Join("testdata", "schema", name+".sql"), schemaSQL(ad))
		})
	}
}

func schemaSQL(ad *adapters.Adapter) string {
	d := ad.Dialect
	state := adapters.State{Audit: adapters.Relation{Schema: "analytics", Name: "idemc_audit"}, Marks: adapters.Relation{Schema: "analytics", Name: "idemc_state"}}
	day := time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC)
	part := &adapters.Write{Model: "events", Materialized: adapters.Incremental, Strategy: "delete_insert",
		Target: adapters.Relation{Schema: "analytics", Name: "events"}, PartitionBy: "d",
		Window: &adapters.Window{Start: day, End: day.AddDate(0, 0, 1), Granularity: "day", Key: "2026-07-02"},
		Select: "SELECT id, d, amount FROM raw.events", Columns: []string{"id", "d", "amount"}, State: state}
	ty := engineTypes[ad.Name]
	dest := []adapters.Column{{Name: "id", Type: ty[0]}, {Name: "d", Type: "DATE"}, {Name: "amount", Type: ty[2]}}
	changes := []adapters.ColumnChange{{Name: "id", From: ty[0], To: ty[1]}, {Name: "amount", From: ty[2], To: ty[3]}}
	var b strings.Builder
	section := func(title string, sql ...string) {
		fmt.Fprintf(&b, "-- %s\n", title)
		for _, q := range sql {
			fmt.Fprintf(&b, "%s;\n", q)
		}
		b.WriteString("\n")
	}
	// The state tables, as the runner creates them (Spark's are Delta
	// tables by their DDL: the engine sends it unchanged).
	all := state
	all.Runs = adapters.Relation{Schema: "analytics", Name: "idemc_runs"}
	section("the state tables", d.StateDDL(all)...)
	section(fmt.Sprintf("sync_all_columns: retype id %s → %s and amount %s → %s in place (rows kept)", ty[0], ty[1], ty[2], ty[3]), d.RetypeColumns(part, dest, changes)...)
	section(fmt.Sprintf("append_new_columns / sync_all_columns: add a column (batch type %s)", ty[3]), d.AddColumn(part.Target, adapters.Column{Name: "note", Type: ty[3]}))
	section("sync_all_columns: drop a column", d.DropColumn(part.Target, "old"))
	section("full refresh whose types cannot change in place: drop, then the prepare steps again", d.DropTable(part.Target))
	if ab, ok := d.(adapters.AsideBuilder); ok {
		// DDL commits on its own: a unit that changes columns works on a
		// copy and swaps it in after its checks (sqlgen.Recipe composes it).
		aside, old := part.Target, part.Target
		aside.Name += "__idemc_new"
		old.Name += "__idemc_old"
		section("column changes go to a copy of the destination, with its rows", ab.CopyTable(aside, part.Target, true)...)
		section("or an empty copy (a full rebuild)", ab.CopyTable(aside, part.Target, false)...)
		section("the checked copy replaces the destination", ab.SwapTable(part.Target, aside, old))
		if ks, ok := d.(adapters.KindSwapper); ok {
			// A changed materialization: the new relation is built and
			// checked aside, then swapped in (sqlgen.Recipe composes it).
			view := *part
			view.Materialized, view.Window, view.PartitionBy, view.Strategy = adapters.View, nil, "", ""
			section("a table becomes a view: the checked view takes its place", ks.SwapKind(&view, aside, old, false)...)
			section("a view becomes a table (or an incremental table): the checked table takes its place", ks.SwapKind(part, aside, old, true)...)
			section("a relation a dead run left at __idemc_old goes back: a table, a view", ks.RenameRelation(old, part.Target, false), ks.RenameRelation(old, part.Target, true))
		}
	}

	keyed := *part
	keyed.Window, keyed.PartitionBy, keyed.Strategy, keyed.UniqueKey = nil, "", "merge", []string{"id"}
	keyed.FullRefresh = true
	keyed.Recreate = ad.Capabilities.ReplaceDefinition
	fmt.Fprintf(&b, "-- full refresh of an unpartitioned model whose column types changed (recreate in the write: %v)\n", keyed.Recreate)
	steps(&b, d.Recipe(&keyed))
	table := adapters.Write{Model: "totals", Materialized: adapters.Table, Target: adapters.Relation{Schema: "analytics", Name: "totals"},
		Select: "SELECT user_id, count(*) AS n FROM raw.events GROUP BY user_id", Columns: []string{"user_id", "n"}, State: state,
		Recreate: ad.Capabilities.TableInPlace && ad.Capabilities.ReplaceDefinition}
	if vb, ok := d.(adapters.ViewBinder); ok {
		section("the views that read a table the write recreates (read before the write)", vb.DependentViewsQuery(table.Target))
		table.Views = []adapters.ViewDef{{Relation: adapters.Relation{Schema: "analytics", Name: "totals_v"}, SQL: " SELECT totals.user_id,\n    totals.n\n   FROM analytics.totals;"}}
	}
	fmt.Fprintf(&b, "-- table model whose column types changed (recreate in the write: %v)\n", table.Recreate)
	steps(&b, d.Recipe(&table))
	if _, ok := d.(adapters.ViewBinder); ok {
		view := adapters.Write{Model: "totals_v", Materialized: adapters.View, Target: adapters.Relation{Schema: "analytics", Name: "totals_v"},
			Select: "SELECT user_id, n FROM analytics.totals", State: state, Recreate: true,
			Views: []adapters.ViewDef{{Relation: adapters.Relation{Schema: "analytics", Name: "top"}, SQL: " SELECT totals_v.user_id\n   FROM analytics.totals_v;"}}}
		b.WriteString("-- view model whose columns changed in a way CREATE OR REPLACE VIEW cannot take\n")
		steps(&b, d.Recipe(&view))
	}
	return b.String()
}

// engineTypes are realistic type names per engine: id's in the destination
// (as the catalog says) and in the batch (as the driver says), then
// amount's.
var engineTypes = map[string][4]string{
	"duckdb":    {"INTEGER", "BIGINT", "BIGINT", "VARCHAR"},
	"postgres":  {"INTEGER", "INT8", "BIGINT", "TEXT"},
	"mysql":     {"INT", "BIGINT", "BIGINT", "VARCHAR"},
	"snowflake": {"NUMBER(38, 0)", "NUMBER(38, 2)", "NUMBER(38, 0)", "TEXT"},
	"bigquery":  {"INTEGER", "FLOAT", "INTEGER", "STRING"},
	"spark":     {"INTEGER", "LONG", "LONG", "STRING"},
}

func steps(b *strings.Builder, steps []adapters.Step) {
	for _, s := range steps {
		fmt.Fprintf(b, "-- [%s] %s\n%s;\n", s.Purpose, s.Comment, s.SQL)
	}
	b.WriteString("\n")
}
