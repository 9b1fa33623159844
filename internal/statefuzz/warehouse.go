package statefuzz

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/idemc/idemc/adapters"
	_ "github.com/idemc/idemc/adapters/duckdb"   // registers duckdb
	_ "github.com/idemc/idemc/adapters/mysql"    // registers mysql
	_ "github.com/idemc/idemc/adapters/postgres" // registers postgres
	"github.com/idemc/idemc/plan"
)

// Engine is one engine the fuzzer runs against.
type Engine struct {
	// Name is the registered engine: duckdb, postgres or mysql.
	Name string
	// DSN of the live server (postgres, mysql); it reaches idemc through
	// the environment variable DSNVar, as a user's project would read it.
	DSN, DSNVar string
}

// Warehouse is one place a project is built: idemc's warehouse of a
// sequence, or one oracle's fresh warehouse. Each has its own project
// folder, its own schemas and (DuckDB) its own database file.
type Warehouse struct {
	Engine  *Engine
	Schemas Schemas
	Dir     string // the project folder
}

var schemaSeq atomic.Int64

// NewWarehouse returns a warehouse with fresh schema names (pid and a
// counter, so concurrent test processes never share one) in dir.
func (e *Engine) NewWarehouse(dir string) *Warehouse {
	prefix := fmt.Sprintf("sfz%d_%d", os.Getpid()%100000, schemaSeq.Add(1))
	return &Warehouse{Engine: e, Schemas: Schemas{Prefix: prefix}, Dir: dir}
}

// target is the body of the project's [targets.t] table.
func (w *Warehouse) target() string {
	if w.Engine.Name == "duckdb" {
		return "engine = \"duckdb\"\npath = \"warehouse.duckdb\"\n"
	}
	return fmt.Sprintf("engine = %q\ndsn = \"${%s}\"\n", w.Engine.Name, w.Engine.DSNVar)
}

func (w *Warehouse) settings() map[string]string {
	if w.Engine.Name == "duckdb" {
		return map[string]string{"path": filepath.Join(w.Dir, "warehouse.duckdb")}
	}
	return map[string]string{"dsn": w.Engine.DSN}
}

// Files renders p for this warehouse.
func (w *Warehouse) Files(p *Project) map[string]string {
	return p.Files(w.Schemas, w.target())
}

// Write makes the project folder hold exactly p's files (models and seeds
// that p no longer has are removed).
func (w *Warehouse) Write(p *Project) error {
	for _, sub := range []string{"models", "seeds"} {
		if err := os.RemoveAll(filepath.Join(w.Dir, sub)); err != nil {
			return err
		}
	}
	for name, text := range w.Files(p) {
		path := filepath.Join(w.Dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Dialect is the engine's SQL text.
func (w *Warehouse) Dialect() adapters.Dialect {
	ad, _ := adapters.Lookup(w.Engine.Name)
	return ad.Dialect
}

// with opens a session for f. DuckDB allows one process per file: never
// call it while an idemc process runs on this warehouse.
func (w *Warehouse) with(ctx context.Context, f func(adapters.Session) error) error {
	ad, ok := adapters.Lookup(w.Engine.Name)
	if !ok {
		return fmt.Errorf("engine %s is not registered", w.Engine.Name)
	}
	eng, err := ad.Open(ctx, w.settings())
	if err != nil {
		return err
	}
	defer eng.Close()
	s, err := eng.Session(ctx)
	if err != nil {
		return err
	}
	defer s.Close()
	return f(s)
}

// Exec runs statements on the warehouse outside idemc.
func (w *Warehouse) Exec(ctx context.Context, stmts ...string) error {
	return w.with(ctx, func(s adapters.Session) error {
		for _, q := range stmts {
			if _, err := adapters.ExecSQL(ctx, s, q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		return nil
	})
}

// Drop removes the warehouse's schemas (server engines; a DuckDB file goes
// with its folder).
func (w *Warehouse) Drop(ctx context.Context) {
	if w.Engine.Name == "duckdb" {
		return
	}
	var stmts []string
	for _, sc := range w.Schemas.All() {
		q := "DROP SCHEMA IF EXISTS " + w.Dialect().Quote(sc)
		if w.Engine.Name == "postgres" {
			q += " CASCADE"
		}
		stmts = append(stmts, q)
	}
	_ = w.with(ctx, func(s adapters.Session) error {
		for _, q := range stmts {
			_, _ = adapters.ExecSQL(ctx, s, q)
		}
		return nil
	})
}

// dropStatements are the engine SQL of OpDropOutside: the relation of node
// is dropped (with what depends on it, where the engine insists) or emptied.
// isView says what the relation is: after a failed materialization switch
// it is not what the files say.
func (w *Warehouse) dropStatements(p *Project, node, mode string, isView bool) []string {
	loc, ok := p.Locations(w.Schemas)[node]
	if !ok {
		return nil
	}
	rel := w.Dialect().Qualify(plan.Relation{Schema: loc.Schema, Name: loc.Name})
	switch {
	case isView && w.Engine.Name == "postgres":
		return []string{"DROP VIEW IF EXISTS " + rel + " CASCADE"} // views on it go too, as a DBA's drop would
	case isView:
		return []string{"DROP VIEW IF EXISTS " + rel}
	case mode == "truncate":
		return []string{"DELETE FROM " + rel}
	case w.Engine.Name == "postgres":
		return []string{"DROP TABLE IF EXISTS " + rel + " CASCADE"}
	default:
		return []string{"DROP TABLE IF EXISTS " + rel}
	}
}

// dropLatest is the engine SQL of OpDropLatest.
func (w *Warehouse) dropLatest() string {
	return "DROP TABLE IF EXISTS " + w.Dialect().Qualify(plan.StateIn(w.Schemas.Target()).Latest)
}

// isMissing recognises "no such relation" errors: emptying a relation that
// is not there (not built yet, or built elsewhere) is not a failure of the
// operation.
func isMissing(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.ToLower(err.Error())
	return strings.Contains(msg, "does not exist") || strings.Contains(msg, "doesn't exist") || strings.Contains(msg, "not found")
}

// relationIsView reports whether node's relation is a view now.
func (w *Warehouse) relationIsView(ctx context.Context, p *Project, node string) (bool, error) {
	loc, ok := p.Locations(w.Schemas)[node]
	if !ok {
		return false, nil
	}
	var view bool
	err := w.with(ctx, func(s adapters.Session) (err error) {
		view, err = isView(ctx, s, w.Dialect(), loc)
		return err
	})
	return view, err
}
