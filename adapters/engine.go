package adapters

import (
	"context"
	"fmt"

	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// Engine is a live connection to a target. One Engine serves a whole run;
// Session pins one connection for one unit, so BEGIN … COMMIT and session
// locks stay on the same server session.
type Engine interface {
	// Session pins a connection. The caller must Close it.
	Session(ctx context.Context) (Session, error)
	// LoadSeed replaces the contents of r with a parsed, typed seed, in bulk,
	// and returns the row count. Every engine creates the table's columns
	// from the seed's kinds (its dialect's SeedType) and receives each value
	// in its kind, NULL for an empty field; the replacement is atomic, but
	// how differs: DuckDB appends to a table created in one transaction,
	// PostgreSQL truncates (or recreates) and COPYs in one transaction,
	// MySQL/MariaDB and Snowflake fill a table aside with batched INSERTs and
	// swap it in (RENAME TABLE, SWAP WITH), BigQuery runs one WRITE_TRUNCATE
	// load job, Spark fills a staging Delta table and publishes it with one
	// CREATE OR REPLACE; the statements of those SQL loads are their
	// dialects' (SeedLoader).
	LoadSeed(ctx context.Context, r Relation, t *seed.Table) (int64, error)
	// Close releases the connection (and, for DuckDB, the database file lock).
	Close() error
}

// Session is one pinned connection.
type Session interface {
	// Exec runs one step and returns the rows it affected (-1 if unknown).
	// The step says what its SQL cannot: a check step's failing rows (at
	// most sqlgen.SampleLimit) come back in the result; a lock step's lock
	// is taken by the engine, which returns an error wrapping ErrLocked
	// when it was not (a timed-out wait, MySQL's GET_LOCK answering 0 or
	// NULL); a job spec or a deferred step is for engines that submit jobs
	// or buffer scripts (BigQuery). Ad-hoc statements go through ExecSQL.
	Exec(ctx context.Context, s *plan.Step) (plan.Result, error)
	// Query runs a query and returns at most limit rows as text (NULL as
	// "NULL"), with the column names. It reads: state, catalogs, counts.
	Query(ctx context.Context, sql string, limit int) (cols []string, rows [][]string, err error)
	// Columns reports the columns of a query that returns no rows: by
	// running it, or, on DuckDB, from its prepared statement without
	// running it (adapters/duckdb/describe.go).
	Columns(ctx context.Context, sql string) ([]Column, error)
	// Relation reports a relation's columns, or ok=false when it does not exist.
	Relation(ctx context.Context, r Relation) (cols []Column, ok bool, err error)
	Close() error
}

// ExecSQL runs one ad-hoc statement (state DDL, audit rows, test
// helpers) as a step with no purpose and returns the rows it affected.
func ExecSQL(ctx context.Context, sess Session, sql string) (int64, error) {
	res, err := sess.Exec(ctx, &plan.Step{SQL: sql})
	return res.Affected, err
}

// CheckFailed is the error of a script that stopped on a check's assertion
// (BigQuery's ASSERT … AS 'idemc check NAME'): the engine names the check
// so that the runner records it failed, not passed.
type CheckFailed struct {
	Check  string   // the check's name (plan.Check.Name)
	Sample []string // failing rows, when the engine can tell
	Err    error
}

func (e *CheckFailed) Error() string { return fmt.Sprintf("check %s failed: %v", e.Check, e.Err) }

func (e *CheckFailed) Unwrap() error { return e.Err }

// DDLRacer is implemented by engines on which an idempotent DDL statement
// (CREATE … IF NOT EXISTS) can fail when another session creates the same
// object at the same moment. LostDDLRace reports whether err is such a
// failure: run again, the statement finds the object and does nothing.
// Any other error fails the statement at once.
type DDLRacer interface {
	LostDDLRace(err error) bool
}

// RunLocks is implemented by engines that several idemc processes can write
// to at once. A run holds a lock named by its run id for its whole life, so
// a later run can tell a dead run's running audit rows (lock free) from a
// live one's. Single-writer engines (DuckDB) need no such lock: any running
// row found at the start of a run is a dead run's.
type RunLocks interface {
	// HoldRun takes the run's lock on a dedicated session until release.
	HoldRun(ctx context.Context, runID string) (release func(), err error)
	// RunAlive reports whether the run's lock is held by a live session.
	RunAlive(ctx context.Context, runID string) (bool, error)
}

// ServerSessions is implemented by engines whose server lets one session
// list and end the others (PostgreSQL, MySQL/MariaDB): the fault trials kill
// an idemc process's server sessions mid-unit with it.
type ServerSessions interface {
	// Sessions lists the server's other sessions that m matches, read on s.
	// PostgreSQL matches by application_name, MySQL/MariaDB by the client's
	// TCP port (or, with no ports, by text in the running statement).
	Sessions(ctx context.Context, s Session, m SessionMatch) ([]ServerSession, error)
	// KillSession ends a session by its id; one already gone is no error.
	KillSession(ctx context.Context, s Session, id string) error
}

// SessionMatch says which server sessions are a process's.
type SessionMatch struct {
	App   string       // the application_name the process connects with
	Ports map[int]bool // the process's local TCP ports
	Text  string       // text its statements contain (a schema name)
}

// ServerSession is one session on the server.
type ServerSession struct {
	ID     string
	Active bool   // executing a statement now
	InTx   bool   // inside a transaction
	Query  string // the statement's start, when active
}
