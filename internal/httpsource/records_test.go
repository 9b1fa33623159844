package httpsource_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/internal/httpsource"
)

func decode(t *testing.T, s string) []map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		t.Fatal(err)
	}
	recs, err := httpsource.Records(doc, "")
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func TestTableTypes(t *testing.T) {
	recs := decode(t, `[{"id": 1, "amount": 2, "ok": true, "day": "2026-07-01", "at": "2026-07-01T10:00:00+02:00", "zip": "00123", "tags": ["a"], "n": null},
		{"id": 2, "amount": 2.5, "ok": false, "day": "2026-07-02", "at": "2026-07-01T10:00:00Z", "zip": "75001", "tags": {"k": 1}, "n": null}]`)
	tb, err := httpsource.Table(recs, httpsource.TableOptions{PrimaryKey: []string{"id"}, Declared: map[string]seed.Kind{"zip": seed.Text}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]seed.Kind{"id": seed.BigInt, "amount": seed.Double, "ok": seed.Boolean, "day": seed.Date, "at": seed.Timestamp,
		"zip": seed.Text, "tags": seed.Text, "n": seed.Text, httpsource.KeyColumn: seed.Text, httpsource.HashColumn: seed.Text}
	for _, c := range tb.Columns {
		if want[c.Name] != c.Kind {
			t.Errorf("column %s is %s, want %s", c.Name, c.Kind, want[c.Name])
		}
	}
	if tb.Columns[0].Name != "id" || len(tb.Columns) != len(want) {
		t.Fatalf("columns %+v", tb.Columns)
	}
	row := map[string]any{}
	for j, c := range tb.Columns {
		row[c.Name] = tb.Rows[0][j]
	}
	if row["at"] != time.Date(2026, 7, 1, 8, 0, 0, 0, time.UTC) || row["tags"] != `["a"]` || row[httpsource.KeyColumn] != "[1]" || row["n"] != nil {
		t.Fatalf("row %v", row)
	}
	// The same record in another field order hashes alike.
	again := decode(t, `[{"n": null, "tags": ["a"], "zip": "00123", "at": "2026-07-01T10:00:00+02:00", "day": "2026-07-01", "ok": true, "amount": 2, "id": 1}]`)
	tb2, _ := httpsource.Table(again, httpsource.TableOptions{PrimaryKey: []string{"id"}})
	if h1, h2 := tb.Rows[0][len(tb.Columns)-1], tb2.Rows[0][len(tb2.Columns)-1]; h1 != h2 {
		t.Fatalf("hashes differ: %v %v", h1, h2)
	}
}

func TestTableErrors(t *testing.T) {
	cases := []struct {
		body, want string
		existing   map[string]seed.Kind
	}{
		{`[{"id": 1}, {"name": "x"}]`, `record 1 has no primary key field "id"`, nil},
		{`[{"id": 1}, {"id": 2}, {"id": 1}]`, `records 0 and 2 have the same primary key [1]`, nil},
		{`[{"id": 1, "amount": "abc"}]`, `record 0: field "amount": "abc" is not a bigint (the table's column is bigint`, map[string]seed.Kind{"amount": seed.BigInt}},
	}
	for _, c := range cases {
		_, err := httpsource.Table(decode(t, c.body), httpsource.TableOptions{PrimaryKey: []string{"id"}, Existing: c.existing, URL: "http://x/p1"})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "page http://x/p1") {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
	// NULL keys are keys: two records with a null id are duplicates, one is not.
	if _, err := httpsource.Table(decode(t, `[{"id": null}, {"id": 1}]`), httpsource.TableOptions{PrimaryKey: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
}
