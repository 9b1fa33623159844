package sqlgen

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters/seed"
)

func TestInsertSeedBatches(t *testing.T) {
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	tab := &seed.Table{
		Columns: []seed.Column{{Name: "id", Kind: seed.BigInt}, {Name: "d", Kind: seed.Date}},
		Rows:    [][]any{{int64(1), day}, {int64(2), nil}, {int64(3), day}},
	}
	type call struct {
		q    string
		args []any
	}
	var calls []call
	exec := func(q string, args ...any) error { calls = append(calls, call{q, args}); return nil }
	if err := InsertSeed(exec, `"raw"."s"`, []string{`"id"`, `"d"`}, tab, 2); err != nil {
		t.Fatal(err)
	}
	want := []call{
		{`INSERT INTO "raw"."s" ("id", "d") VALUES (?, ?), (?, ?)`, []any{int64(1), day, int64(2), nil}},
		{`INSERT INTO "raw"."s" ("id", "d") VALUES (?, ?)`, []any{int64(3), day}},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls:\n got %#v\nwant %#v", calls, want)
	}
}

// A wide seed gets smaller batches: MySQL refuses more than 65,535 placeholders.
func TestInsertSeedStaysUnderParamLimit(t *testing.T) {
	cols := make([]seed.Column, 1000)
	quoted := make([]string, len(cols))
	row := make([]any, len(cols))
	for i := range cols {
		cols[i] = seed.Column{Name: "c", Kind: seed.Text}
		quoted[i] = "c"
	}
	tab := &seed.Table{Columns: cols}
	for i := 0; i < 70; i++ {
		tab.Rows = append(tab.Rows, row)
	}
	n := 0
	exec := func(q string, args ...any) error {
		n++
		if len(args) > maxParams || strings.Count(q, "?") != len(args) {
			t.Errorf("%d args", len(args))
		}
		return nil
	}
	if err := InsertSeed(exec, "t", quoted, tab, 500); err != nil {
		t.Fatal(err)
	}
	if n != 2 { // 70 rows, 65 per statement
		t.Errorf("%d statements, want 2", n)
	}
}
