package duckdb

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" database/sql driver

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
)

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "duckdb", Dialect: NewDialect(), Capabilities: Capabilities, Open: Open,
		Docs: "one transaction per unit (DDL included); the database file admits one writer process",
	})
}

// Engine is an open DuckDB database file.
type Engine struct {
	db *sql.DB
	d  Dialect
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
	db, err := sql.Open("duckdb", path)
	if err == nil {
		err = db.PingContext(ctx)
	}
	if err != nil {
		if strings.Contains(err.Error(), "lock") {
			return nil, fmt.Errorf("duckdb: %s is %w (another idemc or DuckDB process has it open); wait for it to finish, then run again: %v", path, adapters.ErrLocked, firstLine(err.Error()))
		}
		return nil, fmt.Errorf("duckdb: open %s: %w", path, err)
	}
	return &Engine{db: db, d: NewDialect()}, nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Session pins one connection.
func (e *Engine) Session(ctx context.Context) (adapters.Session, error) {
	c, err := e.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	return &sqlgen.Session{Conn: c, Gen: e.d.Gen}, nil
}

// LoadCSV replaces r with the CSV file's rows in one statement, read by
// DuckDB's own CSV reader (never row by row).
func (e *Engine) LoadCSV(ctx context.Context, r adapters.Relation, path string) (int64, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return 0, err
	}
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
	q := fmt.Sprintf("CREATE OR REPLACE TABLE %s AS SELECT * FROM read_csv(%s, header = true, auto_detect = true)", e.d.Qualify(r), e.d.String(abs))
	if _, err := c.ExecContext(ctx, q); err != nil {
		return 0, err
	}
	var n int64
	err = c.QueryRowContext(ctx, "SELECT count(*) FROM "+e.d.Qualify(r)).Scan(&n)
	return n, err
}

// Close releases the file lock.
func (e *Engine) Close() error { return e.db.Close() }

var _ adapters.Dialect = Dialect{}
