package sqlgen

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

func TestInsertSeedBatches(t *testing.T) {
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	tab := &seed.Table{
		Columns: []seed.Column{{Name: "id", Kind: seed.BigInt}, {Name: "d", Kind: seed.Date}},
		Rows:    [][]any{{int64(1), day}, {int64(2), nil}, {int64(3), day}},
	}
	type call = adapters.SeedBatch
	var calls []call
	for b := range quoted.BoundSeedBatches(plan.Relation{Schema: "raw", Name: "s"}, tab, 2) {
		calls = append(calls, b)
	}
	want := []call{
		{SQL: `INSERT INTO "raw"."s" ("id", "d") VALUES (?, ?), (?, ?)`, Args: []any{int64(1), day, int64(2), nil}},
		{SQL: `INSERT INTO "raw"."s" ("id", "d") VALUES (?, ?)`, Args: []any{int64(3), day}},
	}
	if !reflect.DeepEqual(calls, want) {
		t.Errorf("calls:\n got %#v\nwant %#v", calls, want)
	}
}

// A wide seed gets smaller batches: MySQL refuses more than 65,535 placeholders.
func TestInsertSeedStaysUnderParamLimit(t *testing.T) {
	cols := make([]seed.Column, 1000)
	row := make([]any, len(cols))
	for i := range cols {
		cols[i] = seed.Column{Name: "c", Kind: seed.Text}
	}
	tab := &seed.Table{Columns: cols}
	for i := 0; i < 70; i++ {
		tab.Rows = append(tab.Rows, row)
	}
	n := 0
	for b := range quoted.BoundSeedBatches(plan.Relation{Name: "t"}, tab, 500) {
		n++
		if len(b.Args) > maxParams || strings.Count(b.SQL, "?") != len(b.Args) {
			t.Errorf("%d args", len(b.Args))
		}
	}
	if n != 2 { // 70 rows, 65 per statement
		t.Errorf("%d statements, want 2", n)
	}
}

// quoted is a spelling with double-quoted names.
var quoted = Gen{S: Spelling{QuoteOpen: '"', QuoteEnd: '"'}}
