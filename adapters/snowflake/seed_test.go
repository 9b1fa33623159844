package snowflake

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/snowflake/dialect"
	"github.com/idemc/idemc/plan"
)

// TestLoadSeedBindsTypedValues: the seed is built aside from its kinds,
// filled by batched INSERTs whose values are bound in their Snowflake
// types (NULL for an empty field), then swapped in.
// loadName is a seed load's table: S__IDEMC_NEW_<8 hex digits>.
var loadName = regexp.MustCompile(`S__IDEMC_NEW_[0-9A-F]{8}`)

func TestLoadSeedBindsTypedValues(t *testing.T) {
	f := newFakeSnowflake(t)
	e, _ := openFake(t, f)
	f.reset()
	tab, errs := seed.Parse([]byte("id,amount,ok,d,ts,zip\n1,2.5,true,2026-07-01,2026-07-01 10:00:00,00123\n2,,false,,,\n"), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	n, err := e.LoadSeed(context.Background(), plan.Relation{Schema: "raw", Name: "s"}, tab)
	if err != nil || n != 2 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	var sqls []string
	var insert stmt
	load := "" // the load's own table name: one per load
	for _, s := range f.statements() {
		if strings.HasPrefix(s.SQL, "ALTER SESSION") || strings.HasPrefix(s.SQL, "SELECT") {
			continue // session setup
		}
		if m := loadName.FindString(s.SQL); m != "" {
			if load != "" && m != load {
				t.Errorf("the load names two tables, %s and %s", load, m)
			}
			load = m
		}
		sqls = append(sqls, loadName.ReplaceAllString(s.SQL, "S__IDEMC_NEW"))
		if strings.HasPrefix(s.SQL, "INSERT") {
			insert = s
		}
	}
	want := []string{
		`CREATE SCHEMA IF NOT EXISTS "RAW"`,
		`CREATE OR REPLACE TABLE "RAW"."S__IDEMC_NEW" ("ID" BIGINT, "AMOUNT" DOUBLE, "OK" BOOLEAN, "D" DATE, "TS" TIMESTAMP_NTZ, "ZIP" VARCHAR)`,
		`INSERT INTO "RAW"."S__IDEMC_NEW" ("ID", "AMOUNT", "OK", "D", "TS", "ZIP") VALUES (?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?)`,
		`CREATE TABLE IF NOT EXISTS "RAW"."S" LIKE "RAW"."S__IDEMC_NEW"`,
		`ALTER TABLE "RAW"."S" SWAP WITH "RAW"."S__IDEMC_NEW"`,
		`DROP TABLE IF EXISTS "RAW"."S__IDEMC_NEW"`,
	}
	if !reflect.DeepEqual(sqls, want) {
		t.Errorf("statements:\n%s\nwant\n%s", strings.Join(sqls, "\n"), strings.Join(want, "\n"))
	}
	// A date travels as its midnight (TIMESTAMP_NTZ, in nanoseconds) and
	// Snowflake stores it in the DATE column; NULLs are typed as text.
	wantBinds := []string{"FIXED 1", "REAL 2.5", "BOOLEAN true", "TIMESTAMP_NTZ 1782864000000000000", "TIMESTAMP_NTZ 1782900000000000000", "TEXT 00123",
		"FIXED 2", "TEXT <nil>", "BOOLEAN false", "TEXT <nil>", "TEXT <nil>", "TEXT <nil>"}
	if !reflect.DeepEqual(insert.Binds, wantBinds) {
		t.Errorf("binds %q, want %q", insert.Binds, wantBinds)
	}
}

// TestLoadSeedNamedByRun: a load of a run names its table aside by the
// run (RunTag), and the dialect knows it for that run's, so that the next
// run drops it when the load died with its run (a killed load left
// S__IDEMC_NEW_<random> forever; the same bug was found on Spark by a
// fault trial).
func TestLoadSeedNamedByRun(t *testing.T) {
	f := newFakeSnowflake(t)
	e, _ := openFake(t, f)
	f.reset()
	tab, errs := seed.Parse([]byte("id\n1\n"), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	const run = "20260703T060000.000Z-cafe0001"
	if _, err := e.LoadSeed(adapters.WithRun(context.Background(), run), plan.Relation{Schema: "raw", Name: "s"}, tab); err != nil {
		t.Fatal(err)
	}
	d := dialect.NewDialect()
	want := "S__IDEMC_NEW_" + strings.ToUpper(d.RunTag(run))
	names := map[string]bool{}
	for _, s := range f.statements() {
		for _, m := range loadName.FindAllString(s.SQL, -1) {
			names[m] = true
		}
	}
	if len(names) != 1 || !names[want] {
		t.Fatalf("the load's tables: %v, want %s", names, want)
	}
	if tag, ok := d.StageRun("s", want); !ok || tag != d.RunTag(run) {
		t.Errorf("StageRun(s, %s) = %q, %v; want %s", want, tag, ok, d.RunTag(run))
	}
	for _, n := range []string{"S", "S__IDEMC_NEW", "S__IDEMC_NEW_ZZZZZZZZ", "T__IDEMC_NEW_" + d.RunTag(run), "S__IDEMC_STAGE_" + d.RunTag(run)} {
		if _, ok := d.StageRun("s", n); ok {
			t.Errorf("%s is not a seed load's table of s", n)
		}
	}
}
