package sqlgen

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
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
	// LockTaken reads a lock step's answer and returns an error wrapping
	// adapters.ErrLocked when the lock was not taken (MySQL's GET_LOCK).
	// Nil: the lock statement waits until it has the lock and its answer
	// says nothing (PostgreSQL's pg_advisory_xact_lock).
	LockTaken func(s *plan.Step, rows [][]string) error
	// ColumnType, when set, spells a result column's type where the
	// driver's name is not the engine's (Snowflake's FIXED is NUMBER(p, s)).
	ColumnType func(t *sql.ColumnType) string
}

// Ping checks that db reaches its server, closing it when it does not; the
// error names the engine.
func Ping(ctx context.Context, engine string, db *sql.DB) error {
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return fmt.Errorf("%s: %w", engine, err)
	}
	return nil
}

// Pin pins one connection of db for a session (its transaction, session
// locks and temporary tables live on it); the error names the engine.
func Pin(ctx context.Context, engine string, db *sql.DB) (*sql.Conn, error) {
	c, err := db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", engine, err)
	}
	return c, nil
}

// Exec runs one step: a check as a query whose rows are its failures, a
// lock as a query whose answer LockTaken reads, anything else as a
// statement.
func (s *Session) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	switch {
	case st.Check != nil:
		cols, rows, err := s.Query(ctx, st.SQL, SampleLimit)
		return plan.Result{Affected: -1, Columns: cols, Rows: rows}, err
	case st.Lock != nil:
		_, rows, err := s.Query(ctx, st.SQL, 1)
		if err == nil && s.LockTaken != nil {
			err = s.LockTaken(st, rows)
		}
		return plan.Result{Affected: -1}, err
	case st.Counts:
		return s.counted(ctx, st.SQL)
	}
	n, err := s.ExecSQL(ctx, st.SQL)
	return plan.Result{Affected: n}, err
}

// counted runs a statement that answers with the rows it wrote
// (plan.Step.Counts) and returns them as its rows affected (-1 when the
// answer is not a count).
func (s *Session) counted(ctx context.Context, q string) (plan.Result, error) {
	_, rows, err := s.Query(ctx, q, 1)
	if err != nil {
		return plan.Result{}, err
	}
	n := int64(-1)
	if len(rows) == 1 && len(rows[0]) == 1 {
		if v, perr := strconv.ParseInt(rows[0][0], 10, 64); perr == nil {
			n = v
		}
	}
	return plan.Result{Affected: n}, nil
}

// ExecSQL runs one statement and returns the rows it affected (-1 unknown).
func (s *Session) ExecSQL(ctx context.Context, q string) (int64, error) {
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
		if s.ColumnType != nil {
			out[i].Type = s.ColumnType(t)
		}
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
