package bigquery

import (
	"bytes"
	"context"
	"encoding/csv"
	"fmt"
	"strings"

	bq "cloud.google.com/go/bigquery"

	"github.com/idemc/idemc/adapters/bigquery/dialect"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// LoadSeed replaces r with the seed in one load job (WRITE_TRUNCATE: the
// table changes at once or not at all), with the schema from the seed's
// kinds. The job reads the seed re-encoded as canonical CSV (every value
// in its kind's text, an empty field for NULL), not the user's file.
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	data, err := seedCSV(t)
	if err != nil {
		return 0, err
	}
	src := bq.NewReaderSource(bytes.NewReader(data))
	src.SourceFormat = bq.CSV
	src.AllowQuotedNewlines = true // a quoted value may hold a line break
	for _, c := range t.Columns {
		src.Schema = append(src.Schema, fieldSchema(c))
	}
	project, dataset := r.Database, r.Schema
	if project == "" {
		project = e.project
	}
	if dataset == "" {
		dataset = e.dataset
	}
	ds := e.client.DatasetInProject(project, dataset)
	if _, err := ds.Metadata(ctx); err != nil {
		if err := ds.Create(ctx, &bq.DatasetMetadata{Location: e.location}); err != nil && !isConflict(err) {
			return 0, fmt.Errorf("bigquery: creating dataset %s: %w", dataset, err)
		}
	}
	l := ds.Table(r.Name).LoaderFrom(src)
	l.WriteDisposition = bq.WriteTruncate
	l.CreateDisposition = bq.CreateIfNeeded
	l.Location = e.location
	j, err := l.Run(ctx)
	if err != nil {
		return 0, fmt.Errorf("bigquery: %w", err)
	}
	st, err := j.Wait(ctx)
	if err != nil {
		return 0, fmt.Errorf("bigquery: %w", err)
	}
	if err := st.Err(); err != nil {
		return 0, fmt.Errorf("bigquery: loading %s: %w", r.Name, err)
	}
	return int64(len(t.Rows)), nil
}

// seedCSV encodes a seed's rows (no header) as the load job reads them.
func seedCSV(t *seed.Table) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	rec := make([]string, len(t.Columns))
	for i := range t.Rows {
		for j := range t.Columns {
			rec[j], _ = t.Text(i, j) // NULL is an empty field
		}
		if err := w.Write(rec); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}

// fieldType is the load job's schema type of a seed kind: the dialect's
// seed type, as the API names it (a decimal's bounds apart: fieldSchema).
func fieldType(k seed.Kind) bq.FieldType {
	typ := dialect.NewDialect().SeedType(k)
	if name, _, ok := strings.Cut(typ, "("); ok {
		return bq.FieldType(name) // NUMERIC(18,2): the API's type is NUMERIC
	}
	return bq.FieldType(dialect.APIType(typ))
}

// fieldSchema is a seed column in the load job's schema; a decimal(p,s)
// column carries its precision and scale, which the API keeps apart from
// the type name.
func fieldSchema(c seed.Column) *bq.FieldSchema {
	f := &bq.FieldSchema{Name: c.Name, Type: fieldType(c.Kind)}
	if p, s, ok := c.Kind.Decimal(); ok {
		f.Precision, f.Scale = int64(p), int64(s)
	}
	return f
}
