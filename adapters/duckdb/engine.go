// Package duckdb is the embedded default engine: DuckDB through
// github.com/duckdb/duckdb-go/v2, no server and no credentials. Its SQL is
// the pure package dialect.
package duckdb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/duckdb/duckdb-go/v2" // also registers the "duckdb" database/sql driver

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

func init() {
	adapters.RegisterClient("duckdb", adapters.Client{Open: Open, Where: func(s map[string]string) string {
		if p := s["path"]; p != "" && p != ":memory:" {
			return p
		}
		return "in memory"
	}, Missing: func(s map[string]string) bool {
		p := s["path"]
		if p == "" || p == ":memory:" {
			return false // an in-memory database is created by every open
		}
		_, err := os.Stat(p)
		return errors.Is(err, fs.ErrNotExist)
	}})
}

// Engine is an open DuckDB database file.
type Engine struct {
	db *sql.DB
	d  dialect.Dialect
}

// Open opens (creating if needed) the database file named by settings["path"]
// (":memory:" or "" for an in-memory database). DuckDB locks the file for the
// process: a second idemc on the same file gets adapters.ErrLocked.
func Open(ctx context.Context, settings map[string]string) (adapters.Engine, error) {
	path := settings["path"]
	if path == ":memory:" {
		path = ""
	}
	if path != "" {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, fmt.Errorf("duckdb: %w", err)
		}
	}
	err := error(nil)
	if path != "" {
		err = createAtomically(ctx, path)
	}
	var db *sql.DB
	if err == nil {
		db, err = open(ctx, path)
	}
	if err != nil {
		if strings.Contains(err.Error(), "lock") {
			return nil, fmt.Errorf("duckdb: %s is %w (another idemc or DuckDB process has it open); wait for it to finish, then run again: %v", path, adapters.ErrLocked, firstLine(err.Error()))
		}
		return nil, fmt.Errorf("duckdb: open %s: %w", path, err)
	}
	return &Engine{db: db, d: dialect.NewDialect()}, nil
}

// open opens the file (or an in-memory database for ""). Every connection
// runs in UTC: partition windows, partition keys and audit times are UTC
// instants, and DuckDB otherwise casts TIMESTAMP literals to TIMESTAMPTZ in
// the process's TZ (hour windows moved across a DST change). The hook
// outlives ctx (a connection opened after an interrupt records the unit as
// abandoned), so it does not use it.
func open(ctx context.Context, path string) (*sql.DB, error) {
	conn, err := duckdb.NewConnector(path, func(ex driver.ExecerContext) error {
		_, err := ex.ExecContext(context.Background(), "SET TimeZone = 'UTC'", nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	db := sql.OpenDB(conn)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Session pins one connection.
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	c, err := sqlgen.Pin(ctx, "duckdb", e.db)
	if err != nil {
		return nil, err
	}
	return session{&sqlgen.Session{Conn: c, Gen: e.d.Gen}}, nil
}

// LoadSeed replaces r with the seed's rows: the table is created from the
// seed's kinds and filled through DuckDB's appender (never row by row in
// SQL), all in one transaction on one connection, so a failure leaves the
// previous table as it was.
func (e *Engine) LoadSeed(ctx context.Context, r plan.Relation, t *seed.Table) (int64, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if sc := e.d.CreateSchema(r); sc != "" {
		if _, err := c.ExecContext(ctx, sc); err != nil {
			return 0, err
		}
	}
	if _, err := c.ExecContext(ctx, "BEGIN TRANSACTION"); err != nil {
		return 0, err
	}
	err = e.fillSeed(ctx, c, r, t)
	if err == nil {
		_, err = c.ExecContext(ctx, "COMMIT")
	}
	if err != nil {
		_, _ = c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return 0, err
	}
	return int64(len(t.Rows)), nil
}

// fillSeed creates the table and appends every row, inside the caller's
// transaction (the appender writes in its connection's transaction).
func (e *Engine) fillSeed(ctx context.Context, c *sql.Conn, r plan.Relation, t *seed.Table) error {
	if _, err := c.ExecContext(ctx, fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", e.d.Qualify(r), sqlgen.SeedColumnDefs(e.d, t))); err != nil {
		return err
	}
	return c.Raw(func(dc any) error {
		a, err := duckdb.NewAppender(dc.(driver.Conn), r.Database, r.Schema, r.Name)
		if err != nil {
			return err
		}
		vals := make([]driver.Value, len(t.Columns))
		for _, row := range t.Rows {
			for j, v := range row {
				vals[j] = v
				if d, ok := v.(seed.Decimal); ok {
					// The appender takes DECIMAL values as its own type.
					p, _, _ := t.Columns[j].Kind.Decimal()
					vals[j] = duckdb.Decimal{Width: uint8(p), Scale: uint8(d.Scale), Value: d.Unscaled}
				}
			}
			if err := a.AppendRow(vals...); err != nil {
				_ = a.Close()
				return fmt.Errorf("appending to %s: %w", e.d.Qualify(r), err)
			}
		}
		return a.Close() // flushes the last rows
	})
}

// LostDDLRace reports the errors of CREATE … IF NOT EXISTS racing another
// session of this process on the same catalog entry: "already exists"
// (a catalog error) or a catalog write-write conflict (a transaction
// error). Run again, the statement finds the entry.
func (e *Engine) LostDDLRace(err error) bool {
	var de *duckdb.Error
	if !errors.As(err, &de) {
		return false
	}
	msg := strings.ToLower(de.Msg)
	return de.Type == duckdb.ErrorTypeCatalog && strings.Contains(msg, "already exists") ||
		de.Type == duckdb.ErrorTypeTransaction && strings.Contains(msg, "write-write conflict")
}

var _ adapters.DDLRacer = (*Engine)(nil)

// Close releases the file lock.
func (e *Engine) Close() error { return e.db.Close() }
