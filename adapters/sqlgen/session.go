package sqlgen

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/idemc/idemc/plan"
)

// Session is an adapters.Session over one pinned database/sql connection,
// shared by the engines whose Go driver is a database/sql driver.
type Session struct {
	Conn *sql.Conn
	Gen  Gen
	// ColumnsQuery lists a relation's columns as (name, type) rows; engines
	// with another catalog override it.
	ColumnsQuery func(r plan.Relation) string
}

// Exec runs one statement.
func (s *Session) Exec(ctx context.Context, q string) (int64, error) {
	res, err := s.Conn.ExecContext(ctx, q)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return -1, nil
	}
	return n, nil
}

// Query returns at most limit rows as text.
func (s *Session) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	rows, err := s.Conn.QueryContext(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, nil, err
	}
	var out [][]string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if limit > 0 && len(out) >= limit {
			break
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = Text(v)
		}
		out = append(out, row)
	}
	return cols, out, rows.Err()
}

// Text renders a scanned value for messages and fingerprints.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(x)
	case interface{ Format(string) string }:
		return x.Format("2006-01-02 15:04:05.999999")
	default:
		return fmt.Sprint(x)
	}
}

// Columns runs a query that returns no rows and reports its columns.
func (s *Session) Columns(ctx context.Context, q string) ([]plan.Column, error) {
	rows, err := s.Conn.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	out := make([]plan.Column, len(types))
	for i, t := range types {
		out[i] = plan.Column{Name: t.Name(), Type: t.DatabaseTypeName()}
	}
	return out, rows.Err()
}

// Relation reports a relation's columns from information_schema.
func (s *Session) Relation(ctx context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	q := s.ColumnsQuery
	if q == nil {
		q = s.Gen.InfoSchemaColumns
	}
	_, rows, err := s.Query(ctx, q(r), 0)
	if err != nil {
		return nil, false, err
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	out := make([]plan.Column, len(rows))
	for i, row := range rows {
		out[i] = plan.Column{Name: row[0], Type: strings.ToUpper(row[1])}
	}
	return out, true, nil
}

// Close returns the connection to the pool.
func (s *Session) Close() error { return s.Conn.Close() }

// InfoSchemaColumns lists a relation's columns in order.
func (g Gen) InfoSchemaColumns(r plan.Relation) string {
	return fmt.Sprintf("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
		g.SchemaOf(r), g.String(r.Name))
}
