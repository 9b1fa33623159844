package adapters

import (
	"time"
	"unicode/utf8"

	"github.com/idemc/idemc/adapters/seed"
)

// Dialect is everything that is SQL text for one engine. Implementations are
// pure (no connection) so that every engine's SQL can be golden-tested,
// including engines that cannot be reached from a test machine.
type Dialect interface {
	// Name is the engine name, as in a target's engine = "…".
	Name() string
	// Quote quotes one identifier so that any name (spaces, reserved words,
	// quotes) is read as a name and never as SQL.
	Quote(ident string) string
	// Qualify renders a relation as a quoted, qualified name.
	Qualify(r Relation) string
	// String renders a string literal with every quote escaped.
	String(s string) string
	// WindowLiteral renders a partition bound: a date for day/month/year
	// partitions, a timestamp for hour partitions.
	WindowLiteral(t time.Time, granularity string) string
	// Timestamp renders a timestamp literal (as_of, watermarks).
	Timestamp(t time.Time) string
	// SurrogateKey renders DESIGN §5's deterministic key over SQL expressions.
	SurrogateKey(exprs []string) string
	// SeedType is the column type a seed column of kind k is created with
	// (text is VARCHAR, TEXT or STRING, a timestamp has no time zone, …).
	SeedType(k seed.Kind) string
	// Recipe turns one unit of work into its ordered steps (DESIGN §7).
	// Schemas are not part of a recipe: a run creates every schema it
	// writes to once, before its first unit (CreateSchema).
	Recipe(w *Write) []Step
	// CheckQuery renders a check as a query returning failing rows (at most
	// a sample). With whole set it reads the whole table (idemc test);
	// otherwise only the region the unit wrote.
	CheckQuery(c *Check, w *Write, whole bool) string
	// StateDDL creates the audit and state tables idempotently.
	StateDDL(s State) []string
	// AuditMigrations add to an audit table of an earlier release (whose
	// columns are have) the columns it lacks.
	AuditMigrations(s State, have []Column) []string
	// AuditIndex indexes the audit table's unit key, idempotently, without
	// a lock when the index is there; a run with work runs it after
	// StateDDL. "" when StateDDL declares the index (MySQL, whose
	// AuditMigrations add it to an older table) or the engine has no
	// secondary indexes (Snowflake, BigQuery, Spark); DuckDB's scan of its
	// key columns is already ~1.5 ms at 1M rows, an index saves 0.5 ms.
	AuditIndex(s State) string
	// AuditStart inserts the unit's running row (committed before the write).
	AuditStart(s State, row *AuditRow) string
	// AuditFinish sets the unit's final status; countSQL, when not empty, is a
	// scalar subquery giving the rows written (evaluated inside the write's
	// transaction).
	AuditFinish(s State, row *AuditRow, countSQL string) string
	// RunningQuery lists the run ids that have running rows.
	RunningQuery(s State) string
	// Abandon marks the running rows of a dead run as abandoned.
	Abandon(s State, deadRun string) string
	// StateQueries read, in bulk, what planning needs: every unit's latest
	// attempt number, the high-water marks (job_name, high_water) and the
	// latest row of every unit (StatusQuery: job_name, partition_key,
	// status, row_count, attempt, started_at, ended_at, run_id, code_hash,
	// error, inputs, data_version, as_of), which decides whether it is up
	// to date (DESIGN §9) and what idemc status prints.
	AttemptsQuery(s State) string
	MarksQuery(s State) string
	StatusQuery(s State) string
	// RunStart records an invocation in idemc_runs (outcome "running");
	// RunFinish sets its end, outcome and counts.
	RunStart(s State, row *RunRow) string
	RunFinish(s State, row *RunRow) string
	// LastRunQuery returns the most recent retryable run (build, run, seed
	// or retry) as (run_id, command, options, as_of, outcome, retry_of).
	LastRunQuery(s State) string
	// DefaultSchemaQuery returns one row naming the schema where relations
	// without a schema live, so that state and data agree on it; "" when
	// the engine always qualifies (BigQuery's default dataset, Spark).
	DefaultSchemaQuery() string
	// EmptyQuery returns the indexes (0-based) of the tables of rels that
	// have no row: one probe per table that stops at its first row.
	EmptyQuery(rels []Relation) string
	// RelationsQuery lists existing relations as (schema, name) rows.
	RelationsQuery() string
	// Rollback ends a failed transaction.
	Rollback() string
	// AddColumn and DropColumn change a destination's columns
	// (on_schema_change).
	AddColumn(r Relation, c Column) string
	DropColumn(r Relation, name string) string
	// SameType reports whether a destination column of type dest takes the
	// batch's values of type batch without a type change: types are
	// compared by family per engine (int4 and int8 differ; text and varchar
	// are one family on PostgreSQL; lengths are not compared, a DuckDB
	// DECIMAL must hold the batch's precision and scale). A type unknown to
	// the dialect on either side is never a change. docs/engines.md lists
	// the families.
	SameType(dest, batch string) bool
	// RetypeColumns changes destination columns to the batch's types and
	// keeps the rows (on_schema_change = "sync_all_columns"); cols are the
	// destination's columns, in order. The statements run in order before
	// the write's transaction and leave the table unchanged when a value
	// cannot be cast: one ALTER TABLE on PostgreSQL (… TYPE … USING) and
	// MySQL (MODIFY COLUMN), a transaction of ALTERs on DuckDB, a rewrite
	// of the table from itself with CASTs on Snowflake, BigQuery and Spark.
	RetypeColumns(w *Write, cols []Column, changes []ColumnChange) []string
	// DropTable drops a table that a full refresh recreates because its
	// column types cannot change in place. PostgreSQL drops the views that
	// read it with it (CASCADE); DuckDB's and Delta's views bind by name.
	DropTable(r Relation) string
	// CreateSchema creates a relation's schema if it is missing ("" when
	// the relation names no schema).
	CreateSchema(r Relation) string
	// Fingerprint returns one row (rows, hash) summarizing a relation's rows
	// matching where ("" for all): order-independent, over every column.
	Fingerprint(r Relation, where string, cols []string) string
	// DiffQuery returns rows that differ between r (where) and a snapshot:
	// a first column "side" ('now' or 'before') and the row.
	DiffQuery(r Relation, where string, snapshot Relation) string
	// DropSchema drops a scratch schema and everything in it.
	DropSchema(schema string) string
	// DescribeQuery wraps a SELECT so that running it returns its columns and
	// no rows.
	DescribeQuery(sql string) string
	// IdentLimit is the longest identifier the engine keeps. PostgreSQL
	// silently cuts names after 63 bytes, MySQL/MariaDB refuse more than 64
	// characters, Snowflake and Spark (Unity Catalog) 255 characters,
	// BigQuery 1024 bytes for tables and 300 characters for columns; DuckDB
	// has no practical limit.
	IdentLimit() IdentLimit
}

// IdentLimit is an engine's identifier length limit; 0 means none.
type IdentLimit struct {
	Name   int  // relation, schema and index names
	Column int  // column names
	Bytes  bool // counted in UTF-8 bytes (PostgreSQL, BigQuery tables), else in characters
	// ColumnChars counts column names in characters even when Bytes is
	// set (BigQuery: tables 1024 bytes, columns 300 characters).
	ColumnChars bool
}

// ColumnLen is the length of a column name as the engine counts it.
func (l IdentLimit) ColumnLen(name string) int {
	if l.ColumnChars {
		return utf8.RuneCountInString(name)
	}
	return l.Len(name)
}

// ColumnUnit names what ColumnLen counts, for messages.
func (l IdentLimit) ColumnUnit() string {
	if l.ColumnChars {
		return "characters"
	}
	return l.Unit()
}

// Len is the length of ident as the engine counts it.
func (l IdentLimit) Len(ident string) int {
	if l.Bytes {
		return len(ident)
	}
	return utf8.RuneCountInString(ident)
}

// Unit names what Len counts, for messages.
func (l IdentLimit) Unit() string {
	if l.Bytes {
		return "bytes"
	}
	return "characters"
}

// State names the audit, watermark and run tables of a target.
type State struct {
	Audit Relation // idemc_audit
	Marks Relation // idemc_state
	Runs  Relation // idemc_runs
}

// StateIn returns the state tables of a schema ("" for the engine's
// default schema, where unqualified relations live).
func StateIn(schema string) State {
	return State{
		Audit: Relation{Schema: schema, Name: "idemc_audit"},
		Marks: Relation{Schema: schema, Name: "idemc_state"},
		Runs:  Relation{Schema: schema, Name: "idemc_runs"},
	}
}

// AuditColumnsAdded are the idemc_audit columns newer than the first
// release, which AuditMigrations adds to an older table.
func AuditColumnsAdded() []string { return []string{"inputs", "data_version"} }

// RunRow is one invocation in idemc_runs (DESIGN §9).
type RunRow struct {
	RunID     string
	Command   string // build, run, seed, retry, verify
	Options   string // JSON of the planning options, so that retry can replan the run
	Target    string
	AsOf      time.Time
	GitCommit string
	Started   time.Time
	Ended     time.Time
	Outcome   string // running, succeeded, failed, interrupted
	RetryOf   string // the run a retry finishes (the first of its chain)
	Succeeded int
	Failed    int
	Skipped   int
}

// Column is one column of a relation or a query result.
type Column struct {
	Name string
	Type string // the engine's type name; "" when unknown
}

// ViewBinder is implemented by dialects whose views are bound to their
// tables' columns (PostgreSQL): a view reading a column blocks its new
// type, dropping a table drops the views that read it (CASCADE), and
// CREATE OR REPLACE VIEW cannot rename, drop or retype a view's columns. So
// a write that recreates a table or a view (Write.Recreate) recreates the
// views that read it from their definitions, in the same transaction. Dialects whose views bind by name
// when queried (DuckDB, MySQL, Snowflake, BigQuery, Spark) need nothing.
type ViewBinder interface {
	// DependentViewsQuery lists the views that read r, directly or through
	// other views, as (schema, name, definition) rows, in an order they
	// can be created in.
	DependentViewsQuery(r Relation) string
	// CreateView creates a view from its definition.
	CreateView(v ViewDef) string
}

// ViewDef is a view's definition, read from the catalog to recreate it.
type ViewDef struct {
	Relation Relation
	SQL      string // the SELECT
}

// ColumnChange is a destination column whose type is not the batch's.
type ColumnChange struct {
	Name string
	From string // the destination's type
	To   string // the batch's type
}

// AuditRow is one unit's audit record (DESIGN §9).
type AuditRow struct {
	RunID     string
	Job       string
	Partition string
	Status    string // running, succeeded, failed, abandoned
	Started   time.Time
	Ended     time.Time
	Attempt   int64 // 0: count the unit's earlier rows in SQL
	CodeHash  string
	GitCommit string
	Target    string
	AsOf      time.Time
	Error     string
	Checks    string // JSON
	// Inputs is the unit's input fingerprint: code hash, destination and
	// the data version of everything it reads (DESIGN §9).
	Inputs string
	// DataVersion names the data the unit's write left; readers record it
	// in their Inputs. A write's own run id, except for verify's reruns,
	// which leave the data as it was.
	DataVersion string
}

// Purpose says what a step is for; the runner and the printed plan use it.
type Purpose string

// Step purposes, in the order a unit usually runs them.
const (
	Prepare     Purpose = "prepare"      // idempotent DDL before the transaction
	AuditStart  Purpose = "audit_start"  // the running row, committed on its own
	Begin       Purpose = "begin"        // start the write's transaction
	Lock        Purpose = "lock"         // a lock held until commit
	SchemaStep  Purpose = "schema"       // a column or relation change, inside the transaction where DDL is transactional
	Stage       Purpose = "stage"        // materialize the batch
	Validate    Purpose = "validate"     // refuse a bad batch before writing
	Delete      Purpose = "delete"       // remove the region being replaced
	Insert      Purpose = "insert"       // write the batch
	Merge       Purpose = "merge"        // upsert the batch
	CheckStep   Purpose = "check"        // declared checks on the written region
	Publish     Purpose = "publish"      // make a verified build visible
	StateStep   Purpose = "state"        // watermark update
	AuditFinish Purpose = "audit_finish" // succeeded, in the same transaction
	Commit      Purpose = "commit"
	Cleanup     Purpose = "cleanup" // after commit; failures are ignored
)

// Step is one statement of a unit. A check or validate step is a query whose
// rows are failures.
type Step struct {
	Purpose Purpose
	SQL     string
	Comment string
	Check   *Check // for check and validate steps
	// Count, on an audit_finish step, is the scalar query of the rows the
	// unit wrote; the runner evaluates it inside the transaction.
	Count string
	// Release, on a lock step, releases a session lock that outlives COMMIT
	// and ROLLBACK (MySQL's GET_LOCK, which counts re-entries): such a lock
	// query returns 1 when it got the lock, 0 when its wait timed out and
	// NULL on an error, and the runner runs Release once for every time it
	// took the lock, on every exit (the recipe's cleanup step with the same
	// SQL is that release on success). "" for a lock the transaction's end
	// releases.
	Release string
}

// Materialization kinds.
const (
	View        = "view"
	Table       = "table"
	Incremental = "incremental"
	Ephemeral   = "ephemeral"
)

// Write is the engine-neutral description of one unit's write, from which a
// Dialect builds its recipe.
type Write struct {
	Model        string
	Materialized string // view, table, incremental
	Strategy     string // delete_insert, merge, insert_overwrite, append ("" for view/table)
	Target       Relation
	Select       string // the model's SELECT rendered for the target
	PartitionBy  string
	Window       *Window // nil when unpartitioned
	UniqueKey    []string
	// Columns of the batch when known (from analysis at compile time, from
	// the engine at run time); nil means "every column of the batch".
	Columns        []string
	UpdateColumns  []string // merge_update_columns
	ExcludeColumns []string // merge_exclude_columns
	Watermark      *WatermarkWrite
	Checks         []*Check
	FullRefresh    bool
	// Recreate: the unit rebuilds the whole relation (a table, or an
	// unpartitioned full refresh) and the destination's column types cannot
	// take the batch, so the write replaces the relation's definition with
	// its rows, atomically (Capabilities.ReplaceDefinition), instead of
	// replacing only its rows. Set by the runner after comparing columns.
	Recreate bool
	// Views, with Recreate, are the views that read the relation, recreated
	// after it (ViewBinder dialects).
	Views []ViewDef
	// Replace: the relation holds the model's unpartitioned write (it was a
	// table or an unpartitioned incremental model and is partitioned now),
	// so this unit, the model's first in the plan, replaces it like a
	// changed materialization: replacing windows would keep the old rows
	// outside every window. Set by the planner.
	Replace bool

	State State
	Audit *AuditRow // the unit's audit row as far as it is known
}

// WatermarkWrite is the state a watermark model keeps.
type WatermarkWrite struct {
	Column string
}

// Check kinds (DESIGN §8) and the implicit ones the planner adds.
const (
	CheckUnique          = "unique"
	CheckNotNull         = "not_null"
	CheckAcceptedValues  = "accepted_values"
	CheckRelationships   = "relationships"
	CheckRowCountMatches = "row_count_matches"
	CheckMinRows         = "min_rows"
	CheckExpect          = "expect"
	CheckBatchKeys       = "batch_unique_key"   // a merge batch must not repeat a key
	CheckPartitionNull   = "partition_not_null" // no NULL partition values
)

// Check is one declared (or implicit) check of a model.
type Check struct {
	Name     string // e.g. unique(event_key); shown in errors and the audit row
	Kind     string
	Severity string // error or warn
	Columns  []string
	Values   []string // accepted_values
	// relationships: Column must exist in To.ToColumn
	To       Relation
	ToColumn string
	// row_count_matches: the written region has as many rows as Source has
	// for the same window of SourceColumn.
	Source       Relation
	SourceColumn string
	MinRows      int64
	Expr         string // expect
}
