package duckdb_test

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/duckdb"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

func openTemp(t *testing.T) (adapters.Engine, adapters.Session) {
	t.Helper()
	ctx := context.Background()
	eng, err := duckdb.Open(ctx, map[string]string{"path": filepath.Join(t.TempDir(), "w.duckdb")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { eng.Close() })
	s, err := eng.Session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return eng, s
}

// TestLoadSeedTyped: every kind arrives as its DuckDB type, empty fields as
// NULL, leading zeros intact.
func TestLoadSeedTyped(t *testing.T) {
	eng, s := openTemp(t)
	ctx := context.Background()
	tab, errs := seed.Parse([]byte("id,amount,ok,d,ts,zip,note\n1,2.5,true,2026-07-01,2026-07-01 10:00:00.25,00123,\"a, b\"\n2,,false,,,0042,\n"), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	r := plan.Relation{Schema: "raw", Name: "s"}
	n, err := eng.LoadSeed(ctx, r, tab)
	if err != nil || n != 2 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	cols, _, err := s.Relation(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, c := range cols {
		types = append(types, c.Name+" "+c.Type)
	}
	wantTypes := "id BIGINT, amount DOUBLE, ok BOOLEAN, d DATE, ts TIMESTAMP, zip VARCHAR, note VARCHAR"
	if got := strings.Join(types, ", "); got != wantTypes {
		t.Errorf("columns %s, want %s", got, wantTypes)
	}
	_, rows, err := s.Query(ctx, `SELECT id, amount, ok, CAST(d AS VARCHAR), ts, zip, note FROM raw.s ORDER BY id`, 0)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"1", "2.5", "true", "2026-07-01", "2026-07-01 10:00:00.25", "00123", "a, b"},
		{"2", "NULL", "false", "NULL", "NULL", "0042", "NULL"},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("rows\n got %v\nwant %v", rows, want)
	}
}

// TestLoadSeedAtomic: a load that fails half-way leaves the previous table
// and its rows; a view on the seed keeps working after a reload.
func TestLoadSeedAtomic(t *testing.T) {
	eng, s := openTemp(t)
	ctx := context.Background()
	r := plan.Relation{Schema: "raw", Name: "s"}
	good, _ := seed.Parse([]byte("id,name\n1,a\n2,b\n"), nil)
	if _, err := eng.LoadSeed(ctx, r, good); err != nil {
		t.Fatal(err)
	}
	if _, err := adapters.ExecSQL(ctx, s, "CREATE VIEW raw.v AS SELECT count(*) AS n FROM raw.s"); err != nil {
		t.Fatal(err)
	}
	// A value of the wrong Go type fails in the appender, after the
	// table was replaced inside the transaction.
	bad := &seed.Table{Columns: []seed.Column{{Name: "id", Kind: seed.BigInt}, {Name: "other", Kind: seed.Text}},
		Rows: [][]any{{int64(1), "x"}, {"not a number", "y"}}}
	if _, err := eng.LoadSeed(ctx, r, bad); err == nil {
		t.Fatal("a bad row loaded")
	}
	_, rows, err := s.Query(ctx, "SELECT id, name FROM raw.s ORDER BY id", 0)
	if err != nil || !reflect.DeepEqual(rows, [][]string{{"1", "a"}, {"2", "b"}}) {
		t.Fatalf("after a failed load: %v %v", rows, err)
	}
	again, _ := seed.Parse([]byte("id,name\n1,a\n2,b\n3,c\n"), nil)
	if _, err := eng.LoadSeed(ctx, r, again); err != nil {
		t.Fatal(err)
	}
	if _, rows, err := s.Query(ctx, "SELECT n FROM raw.v", 0); err != nil || rows[0][0] != "3" {
		t.Errorf("view after reload: %v %v", rows, err)
	}
}
