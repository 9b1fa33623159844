package conformance

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
)

// Column type changes, part of the on_schema_change scenario. The models
// change amount (an integer in the seed) to text with concat(), which every
// engine spells alike, and back.

func typeModel(extra, amount string) string {
	return "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n" + extra + "*/\n" +
		"SELECT id, d, " + amount + " AS amount FROM {{ source(\"raw\", \"events\") }} WHERE d >= {{ start }} AND d < {{ end }}"
}

// schemaTypeChanges runs the type cases as subtests of on_schema_change.
func schemaTypeChanges(t *testing.T, tgt Target) {
	tgt.runCase(t, "type_fail_and_append", func(t *testing.T) { typeRefused(t, tgt) })
	tgt.runCase(t, "type_sync_all_columns", func(t *testing.T) { typeSync(t, tgt) })
	tgt.runCase(t, "type_sync_with_view", func(t *testing.T) { typeSyncView(t, tgt) })
	tgt.runCase(t, "type_full_refresh", func(t *testing.T) { typeFullRefresh(t, tgt) })
}

// A view reading the retyped column: the retype succeeds and the view reads
// the new type. On an engine whose views bind to columns (PostgreSQL) the
// view blocks an in-place retype, so it is dropped and recreated around it
// in one transaction.
func typeSyncView(t *testing.T, tgt Target) {
	sync := "on_schema_change = \"sync_all_columns\"\n"
	e := newEnv(t, tgt, base(map[string]string{
		"models/daily.sql": typeModel(sync, "amount"),
		"models/v.sql":     `SELECT id, amount FROM {{ ref("daily") }}`,
	}))
	e.mustSucceed(e.build(asOf, nil))
	e.write(map[string]string{"models/daily.sql": typeModel(sync, "concat('n', amount)")})
	res := e.build(asOf, func(o *compiler.Options) { o.Partition, o.Select = "2026-07-02", []string{"daily"} })
	e.mustSucceed(res)
	equal(t, "v after the retype", strings.Join(flatten(e.query("SELECT amount FROM "+e.rel("v")+" WHERE id = 3")), " "), "n5")
}

// fail and append_new_columns refuse a type change before writing.
func typeRefused(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{"models/daily.sql": typeModel("", "amount")}))
	e.mustSucceed(e.build(asOf, nil))
	before, typ := e.fingerprint("daily"), columnType(e, "daily", "amount")
	for _, mode := range []string{"", "on_schema_change = \"append_new_columns\"\n"} {
		e.write(map[string]string{"models/daily.sql": typeModel(mode, "concat('', amount)")})
		res := e.build(asOf, nil)
		u := e.unit(res, "daily/2026-07-02")
		want := []string{"model daily", "column amount changed type from ", " in the destination to ", "on_schema_change = \"sync_all_columns\" or rebuild with --full-refresh"}
		for _, w := range want {
			if u.Status != "failed" || !strings.Contains(u.Error, w) {
				t.Fatalf("%q: want a failure saying %q, got %s: %s", mode, w, u.Status, u.Error)
			}
		}
		// The error names the destination's type as the engine's driver
		// spells it (Spark: LONG where the catalog says bigint).
		from, _, _ := strings.Cut(u.Error[strings.Index(u.Error, want[1])+len(want[1]):], want[2])
		if from != strings.ToUpper(typ) && !e.d.SameType(from, typ) {
			t.Fatalf("%q: the error names the destination's type %s, the catalog says %s: %s", mode, from, typ, u.Error)
		}
		equal(t, "daily after the refused type change", e.fingerprint("daily"), before)
		equal(t, "amount's type after the refused type change", columnType(e, "daily", "amount"), typ)
	}
}

// sync_all_columns retypes in place: the partitions the run does not write
// keep their rows, cast; values that cannot be cast back fail the unit
// naming the column and leave the table as it was.
func typeSync(t *testing.T, tgt Target) {
	sync := "on_schema_change = \"sync_all_columns\"\n"
	e := newEnv(t, tgt, base(map[string]string{"models/daily.sql": typeModel(sync, "amount")}))
	e.mustSucceed(e.build(asOf, nil))
	intType := columnType(e, "daily", "amount")
	e.write(map[string]string{"models/daily.sql": typeModel(sync, "concat('n', amount)")})
	e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.Partition = "2026-07-02" }))
	if typ := columnType(e, "daily", "amount"); !e.d.SameType(typ, e.textType()) {
		t.Fatalf("amount is %s after sync_all_columns to text", typ)
	}
	got := strings.Join(flatten(e.query("SELECT id, amount FROM "+e.rel("daily")+" ORDER BY id")), " ")
	equal(t, "rows after the retype", got, "1,10 2,20 3,n5 4,n7 5,1 6,2 7,3")

	before := e.fingerprint("daily")
	e.write(map[string]string{"models/daily.sql": typeModel(sync, "amount")})
	res := e.build(asOf, func(o *compiler.Options) { o.Partition = "2026-07-01" })
	if u := e.unit(res, "daily/2026-07-01"); u.Status != "failed" || !strings.Contains(u.Error, "retyping column amount from") || !strings.Contains(u.Error, "the destination is unchanged") {
		t.Fatalf("retype of uncastable values: %s %s", u.Status, u.Error)
	}
	equal(t, "daily after the failed retype", e.fingerprint("daily"), before)
	if typ := columnType(e, "daily", "amount"); !e.d.SameType(typ, e.textType()) || e.d.SameType(typ, intType) {
		t.Fatalf("amount is %s after the failed retype, want text still", typ)
	}
}

// --full-refresh always works: a partitioned table whose values cannot be
// cast is recreated, and so is an unpartitioned incremental model. A table
// model read by a view is rebuilt with the new type on every build, keeping
// the view; a failed check keeps the old table and view.
func typeFullRefresh(t *testing.T, tgt Target) {
	e := newEnv(t, tgt, base(map[string]string{
		"models/daily.sql":  typeModel("", "concat('n', amount)"),
		"models/totals.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT user_id, count(*) AS n FROM {{ source(\"raw\", \"events\") }} GROUP BY user_id",
		"models/v.sql":      `SELECT user_id, n FROM {{ ref("totals") }}`,
		"models/w.sql":      `SELECT id, amount FROM {{ source("raw", "events") }}`,
		"models/w2.sql":     `SELECT id, amount FROM {{ ref("w") }}`,
		"models/dim.sql":    "/* idemc\nmaterialized = \"incremental\"\nunique_key = \"id\"\n*/\nSELECT id, name FROM {{ source(\"raw\", \"users\") }}",
	}))
	e.mustSucceed(e.build(asOf, nil))
	// A table whose new type fails a check keeps its old definition and rows.
	totals, view := e.fingerprint("totals"), e.fingerprint("v")
	e.write(map[string]string{"models/totals.sql": "/* idemc\nmaterialized = \"table\"\n[checks]\nmin_rows = 100\n*/\nSELECT user_id, concat('x', count(*)) AS n FROM {{ source(\"raw\", \"events\") }} GROUP BY user_id"})
	res := e.build(asOf, func(o *compiler.Options) { o.Select = []string{"totals"} })
	if u := e.unit(res, "totals"); u.Status != "failed" || !strings.Contains(u.Error, "min_rows(100)") {
		t.Fatalf("totals with a failing check: %s %s", u.Status, u.Error)
	}
	equal(t, "totals after the failed rebuild", e.fingerprint("totals"), totals)
	equal(t, "v after the failed rebuild", e.fingerprint("v"), view)
	// A plain build of the table alone: the view, not rebuilt (its model is
	// up to date), still reads it, with the new type.
	// So does a view model whose column changed type, and the view on it.
	e.write(map[string]string{
		"models/totals.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT user_id, concat('x', count(*)) AS n FROM {{ source(\"raw\", \"events\") }} GROUP BY user_id",
		"models/w.sql":      `SELECT id, concat('n', amount) AS amount FROM {{ source("raw", "events") }}`,
	})
	e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.Select = []string{"totals", "w"} }))
	equal(t, "v after the table's rebuild", strings.Join(flatten(e.query("SELECT user_id, n FROM "+e.rel("v")+" ORDER BY user_id")), " "), "a,x3 b,x2 c,x2")
	equal(t, "w2 after w's rebuild", strings.Join(flatten(e.query("SELECT amount FROM "+e.rel("w2")+" WHERE id = 1")), " "), "n10")
	e.write(map[string]string{
		"models/daily.sql": typeModel("", "amount"),
		"models/dim.sql":   "/* idemc\nmaterialized = \"incremental\"\nunique_key = \"id\"\n*/\nSELECT id, length(name) AS name FROM {{ source(\"raw\", \"users\") }}",
	})
	e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.FullRefresh = true }))
	got := strings.Join(flatten(e.query("SELECT id, amount FROM "+e.rel("daily")+" ORDER BY id")), " ")
	equal(t, "daily after the full refresh", got, "1,10 2,20 3,5 4,7 5,1 6,2 7,3")
	if typ := columnType(e, "daily", "amount"); e.d.SameType(typ, e.textType()) {
		t.Fatalf("amount is still %s after the full refresh", typ)
	}
	equal(t, "dim after the full refresh", strings.Join(flatten(e.query("SELECT id, name FROM "+e.rel("dim")+" ORDER BY id")), " "), "1,3 2,3 3,2")
	// A rerun finds nothing to change.
	e.mustSucceed(e.build(asOf, func(o *compiler.Options) { o.FullRefresh = true }))
}

// columnType is a column's type as the catalog spells it.
func columnType(e *env, table, column string) string {
	for _, c := range e.columnsOf(table) {
		if strings.EqualFold(c.name, column) {
			return c.typ
		}
	}
	e.t.Fatalf("%s has no column %s", table, column)
	return ""
}
