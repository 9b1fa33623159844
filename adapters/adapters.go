// Package adapters is the engine seam. Engine-neutral code (the compiler and
// the runner) speaks to an engine only through the small interfaces here:
//
//   - Dialect: SQL text for one engine, one small interface per concern
//     (dialect.go). Pure functions, golden-tested for every engine.
//   - Engine: a live connection that executes statements.
//   - Capabilities: what an engine can do; it chooses each recipe's shape
//     (ShapeOf), and adapters/dialecttest checks every engine against it.
//
// Each engine lives in its own folder (adapters/duckdb, adapters/postgres, …)
// and registers itself with Register from an init function.
package adapters

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// ErrLocked is returned when another run holds the lock a unit or run needs.
var ErrLocked = errors.New("locked by another run")

// Capabilities is the per-engine table of DESIGN §2 and docs/engines.md.
// sqlgen's shared recipe builder chooses a recipe's shape from it
// (ShapeOf), and dialecttest checks every engine's recipes against it.
type Capabilities struct {
	// TransactionalDDL: CREATE/ALTER/DROP can roll back with the write.
	// Without it, a one-transaction recipe runs its DDL before BEGIN, and
	// a view is published, then checked.
	TransactionalDDL bool
	// TempTableInTransaction: creating and dropping a temporary table does
	// not end the transaction (MySQL/MariaDB), so the batch is staged
	// inside it even without TransactionalDDL; elsewhere (Snowflake) the
	// stage is created before BEGIN and dropped after COMMIT.
	TempTableInTransaction bool
	// Merge: MERGE INTO exists; the shared merge strategy uses it, an
	// engine without it brings its own upsert (MySQL: UPDATE … JOIN, then
	// INSERT … WHERE NOT EXISTS).
	Merge bool
	// PartitionOverwrite: a native partition overwrite (BigQuery's
	// WRITE_TRUNCATE of table$PARTITION, Delta's REPLACE WHERE); without
	// it insert_overwrite is delete + insert, and its recipe says so.
	PartitionOverwrite bool
	// ChecksInWrite: checks run inside the write's transaction or script;
	// without it (Spark) they run on a staged batch before the publish.
	ChecksInWrite bool
	// Script: the statements from BEGIN to COMMIT are buffered and
	// submitted as one script job (BigQuery), whose checks are ASSERTs.
	Script bool
	// UnitLock: a unit's recipe takes a lock step before its first write
	// (PostgreSQL's advisory lock, MySQL's GET_LOCK).
	UnitLock bool
	// UnitClaim: a unit's recipe claims the unit as a row of the lock
	// table (idemc_locks) before its first write, where an engine has no
	// lock a session could hold (Snowflake, BigQuery, Spark); the runner
	// waits while a live run holds it (plan.ClaimSpec).
	UnitClaim bool
	// Lock is how two runs writing one unit are serialized, for the docs.
	Lock string
	// SingleWriter: one process holds the whole database while it runs, so
	// a running audit row of another run can only be left by a dead run.
	SingleWriter bool
	// TableInPlace: a full rebuild keeps the table (TRUNCATE + INSERT on
	// PostgreSQL and BigQuery, INSERT OVERWRITE on Snowflake, so grants,
	// options and dependent views survive); the runner first syncs its
	// columns to the model's (added, dropped and retyped) and the rows are
	// inserted by column name. Without it and without TransactionalDDL
	// (MySQL) a table is built aside, checked and swapped in.
	TableInPlace bool
	// ReplaceDefinition: a write that rebuilds a whole relation can also
	// replace its definition (its column types) atomically with its rows —
	// DDL inside the write's transaction (DuckDB, PostgreSQL) or one Delta
	// commit (Spark). Elsewhere a type change of a full rebuild retypes the
	// columns in place first (on_schema_change = "sync_all_columns").
	ReplaceDefinition bool
}

// Shape is how a recipe makes a unit's write atomic and checked.
type Shape string

// The recipe shapes.
const (
	// OneTransaction: BEGIN, write, checks, audit finish, COMMIT: a failed
	// check rolls the write back.
	OneTransaction Shape = "one transaction"
	// OneScript: the same statements buffered into one script job that
	// commits whole or not at all (BigQuery).
	OneScript Shape = "one script"
	// VerifyThenPublish: the batch (or the table) is built aside and
	// checked there, then published in one atomic statement.
	VerifyThenPublish Shape = "verify, then publish"
	// PublishThenCheck: a view on an engine whose DDL commits on its own:
	// replaced, then checked; a failing check marks the unit failed.
	PublishThenCheck Shape = "publish, then check"
)

// ShapeOf is the shape of w's recipe on an engine with these capabilities.
func (c Capabilities) ShapeOf(w *Write) Shape {
	switch {
	case w.Materialized == View && !c.TransactionalDDL:
		return PublishThenCheck
	case !c.ChecksInWrite:
		return VerifyThenPublish
	case w.Materialized == Table && !c.TransactionalDDL && !c.TableInPlace:
		return VerifyThenPublish
	case c.PartitionOverwrite && w.Materialized == Incremental && w.Strategy == "insert_overwrite" && w.Window != nil && w.PartitionBy != "" && !w.FullRefresh:
		return VerifyThenPublish
	case c.Script:
		return OneScript
	}
	return OneTransaction
}

// CommonSettings are the target keys of every engine.
func CommonSettings() []string { return []string{"engine", "schema", "state_schema", "threads"} }

// Adapter is what an engine folder registers: its dialect, its capabilities
// and, for engines reachable from this binary, a way to open a connection.
type Adapter struct {
	Name         string
	Dialect      Dialect
	Capabilities Capabilities
	// Settings are the [targets.NAME] keys the engine reads, besides the
	// ones every target has (CommonSettings); a project is checked against
	// them when it loads.
	Settings []string
	// Client is the engine's connection side, added by its engine package
	// (RegisterClient); its Open is nil for a compile-only build.
	Client
	// Docs is one line for `idemc compile` and docs/engines.md on how the
	// guarantees are kept on this engine.
	Docs string
}

var (
	registryMu sync.RWMutex
	registry   = map[string]*Adapter{}
)

// Register makes an adapter available by name. Registering a name twice
// panics: two engines must never silently shadow each other.
func Register(a *Adapter) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[a.Name]; dup {
		panic(fmt.Sprintf("adapters: Register called twice for engine %q", a.Name))
	}
	registry[a.Name] = a
}

// Client is the connection side of an engine, registered by its engine
// package.
type Client struct {
	// Open connects to a target; settings are the target's resolved values
	// (path, dsn, schema, …).
	Open func(ctx context.Context, settings map[string]string) (Engine, error)
	// Secrets lists the secret values a target's resolved settings hold
	// as the engine's client reads them (the password of the DSN, through
	// the client's own DSN parser, or the whole DSN when it does not
	// parse); the runner hides each from every message, with the
	// password, token and private_key_path settings. Nil: none.
	Secrets func(settings map[string]string) []string
	// Where names where a target is for messages: host[:port] or a file,
	// never a user or a password ("" unknown).
	Where func(settings map[string]string) string
	// Missing reports that the target's warehouse does not exist yet
	// (DuckDB: no file at its path), so that a command that only reads
	// (plan, status) reports nothing built instead of creating it by
	// connecting. Nil: the warehouse is a server, always there.
	Missing func(settings map[string]string) bool
}

// RegisterClient adds the client to an engine whose dialect package
// registered it: the dialect (pure SQL, for the compiler and its tests) and
// the client (a driver, for the runner) live in separate packages, and the
// engine package imports its dialect's, so the dialect registers first.
func RegisterClient(name string, c Client) {
	registryMu.Lock()
	defer registryMu.Unlock()
	a, ok := registry[name]
	switch {
	case !ok:
		panic(fmt.Sprintf("adapters: RegisterClient(%q) before its dialect registered", name))
	case a.Open != nil:
		panic(fmt.Sprintf("adapters: RegisterClient called twice for engine %q", name))
	}
	a.Client = c
}

// Lookup returns the adapter registered under name.
func Lookup(name string) (*Adapter, bool) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	a, ok := registry[name]
	return a, ok
}

// Names lists the registered engines, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// VerifyDialect is a Dialect that can also verify (idemc verify).
type VerifyDialect interface {
	Dialect
	Verifier
}

// VerifyDialect returns the adapter's dialect for idemc verify, checked
// once, or an error naming the engine when its dialect cannot verify.
func (a *Adapter) VerifyDialect() (VerifyDialect, error) {
	if v, ok := a.Dialect.(VerifyDialect); ok {
		return v, nil
	}
	return nil, fmt.Errorf("engine %s cannot verify: its dialect has no fingerprint", a.Name)
}
