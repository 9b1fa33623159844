package bigquery

import (
	"context"
	"encoding/json"
	"testing"

	bq "cloud.google.com/go/bigquery"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// TestLoadSeedOneLoadJob: a seed is one WRITE_TRUNCATE load job with the
// schema from its kinds and its rows re-encoded as canonical CSV.
func TestLoadSeedOneLoadJob(t *testing.T) {
	f := newFakeBigQuery(t)
	e := f.engine(t, "EU")
	tab, errs := seed.Parse([]byte("id,amount,ok,d,ts,zip,note\n1,2.5,true,2026-07-01,2026-07-01 10:00:00.5,00123,\"a,\nb\"\n2,,false,,,,\n"), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	n, err := e.LoadSeed(context.Background(), plan.Relation{Schema: "raw", Name: "s"}, tab)
	if err != nil || n != 2 {
		t.Fatalf("loaded %d: %v", n, err)
	}
	jobs := f.submitted()
	if len(jobs) != 1 || jobs[0].Load == nil {
		t.Fatalf("jobs: %+v", jobs)
	}
	load := jobs[0].Load
	cfg, _ := json.Marshal(map[string]any{"dest": load["destinationTable"], "write": load["writeDisposition"], "create": load["createDisposition"],
		"schema": load["schema"], "newlines": load["allowQuotedNewlines"], "skip": load["skipLeadingRows"], "format": load["sourceFormat"]})
	want := `{"create":"CREATE_IF_NEEDED","dest":{"datasetId":"raw","projectId":"proj","tableId":"s"},"format":"CSV","newlines":true,` +
		`"schema":{"fields":[{"name":"id","type":"INTEGER"},{"name":"amount","type":"FLOAT"},{"name":"ok","type":"BOOLEAN"},{"name":"d","type":"DATE"},` +
		`{"name":"ts","type":"TIMESTAMP"},{"name":"zip","type":"STRING"},{"name":"note","type":"STRING"}]},"skip":null,"write":"WRITE_TRUNCATE"}`
	if string(cfg) != want {
		t.Errorf("load config\n got %s\nwant %s", cfg, want)
	}
	// The canonical re-encoding: no header, values in their kind's text,
	// NULL as an empty field, quoting kept.
	wantData := "1,2.5,true,2026-07-01,2026-07-01 10:00:00.5,00123,\"a,\nb\"\n2,,false,,,,\n"
	if jobs[0].Data != wantData {
		t.Errorf("data\n got %q\nwant %q", jobs[0].Data, wantData)
	}
}

// TestFieldTypes: a load job's schema names every seed kind as the API
// does, derived from the dialect's one table of seed types.
func TestFieldTypes(t *testing.T) {
	want := map[seed.Kind]bq.FieldType{
		seed.BigInt: bq.IntegerFieldType, seed.Double: bq.FloatFieldType, seed.Boolean: bq.BooleanFieldType,
		seed.Date: bq.DateFieldType, seed.Timestamp: bq.TimestampFieldType, seed.Text: bq.StringFieldType,
	}
	for _, k := range seed.Kinds {
		if got := fieldType(k); got != want[k] {
			t.Errorf("fieldType(%s) = %s, want %s", k, got, want[k])
		}
	}
	for _, c := range []struct {
		kind      seed.Kind
		typ       bq.FieldType
		prec, scl int64
	}{
		{seed.DecimalKind(18, 2), bq.NumericFieldType, 18, 2},
		{seed.DecimalKind(38, 9), bq.NumericFieldType, 38, 9},
		{seed.DecimalKind(38, 10), bq.BigNumericFieldType, 38, 10}, // NUMERIC's scale stops at 9
		{seed.DecimalKind(31, 1), bq.BigNumericFieldType, 31, 1},   // and its integer digits at 29
	} {
		f := fieldSchema(seed.Column{Name: "x", Kind: c.kind})
		if f.Type != c.typ || f.Precision != c.prec || f.Scale != c.scl {
			t.Errorf("fieldSchema(%s) = %s(%d,%d), want %s(%d,%d)", c.kind, f.Type, f.Precision, f.Scale, c.typ, c.prec, c.scl)
		}
	}
}
