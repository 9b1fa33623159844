package adapters

import (
	"iter"
	"time"
	"unicode/utf8"

	"github.com/idemc/idemc/adapters/seed"
)

// Dialect is everything that is SQL text for one engine, composed of one
// small interface per concern. Implementations are pure (no connection) so
// that every engine's SQL can be golden-tested, including engines that
// cannot be reached from a test machine. Each engine's dialect package
// (adapters/<engine>/dialect) builds it from sqlgen's shared builders and
// its own spelling; SQL that is the same on every engine once quoted (the
// run table's statements, the state queries, a verify diff) is not a
// method: sqlgen renders it from Literals.
type Dialect interface {
	Literals
	Recipes
	AuditSQL
	CatalogSQL
	SchemaSQL
	SeedSQL
}

// PlanDialect is what the compiler needs of a dialect: it spells values
// and builds recipes, and never reads the audit, catalog or schema SQL.
type PlanDialect interface {
	Literals
	Recipes
}

// Literals quote and spell values. Engines differ in the quote character
// (" on DuckDB, PostgreSQL, Snowflake; ` on MySQL, BigQuery, Spark), in
// string escapes (a backslash escapes on MySQL, Snowflake, BigQuery and
// Spark; BigQuery and Spark cannot double a quote), in Snowflake's upper
// case for simple names, in Snowflake's TIMESTAMP_NTZ literal and in the
// hash functions of the surrogate key (BigQuery: TO_HEX(MD5(…)), LENGTH).
type Literals interface {
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
	// IdentLimit is the longest identifier the engine keeps. PostgreSQL
	// silently cuts names after 63 bytes, MySQL/MariaDB refuse more than 64
	// characters, Snowflake and Spark (Unity Catalog) 255 characters,
	// BigQuery 1024 bytes for tables and 300 characters for columns; DuckDB
	// has no practical limit.
	IdentLimit() IdentLimit
}

// Recipes turn a unit into steps. The shape of a recipe follows the
// engine's Capabilities (Capabilities.Shape): one transaction on DuckDB,
// PostgreSQL, MySQL/MariaDB and Snowflake (DDL moved before BEGIN where it
// is not transactional), one buffered script on BigQuery (checks are
// ASSERTs inside it), verify-then-publish on Spark (checks on a staged
// batch, then one Delta commit) and for MySQL's tables (built aside,
// checked, swapped in).
type Recipes interface {
	// Recipe turns one unit of work into its ordered steps (DESIGN §7).
	// Schemas are not part of a recipe: a run creates every schema it
	// writes to once, before its first unit (CreateSchema). Nor is a
	// change of the destination's definition (Write.Schema): sqlgen.Recipe
	// composes it around this recipe, the same way on every engine.
	Recipe(w *Write) []Step
	// CheckQuery renders a check as a query returning failing rows (at most
	// a sample). With whole set it reads the whole table (idemc test);
	// otherwise only the region the unit wrote.
	CheckQuery(c *Check, w *Write, whole bool) string
	// Begin starts a unit's transaction (BEGIN, START TRANSACTION on
	// MySQL, BEGIN TRANSACTION on DuckDB, Snowflake and BigQuery, "" on
	// Spark) and Rollback ends a failed one: ROLLBACK; BigQuery's Session
	// discards its buffered script (ROLLBACK TRANSACTION); "" on Spark,
	// whose recipes open none.
	Begin() string
	Rollback() string
	// LineageSelect is a model's SELECT with the row lineage columns
	// (plan.LineageColumns) added after its own, typed alike on every
	// engine: text and the audit's timestamp (lineage_columns, DESIGN §14).
	LineageSelect(sel, runID string, asOf time.Time) string
}

// AuditSQL creates and writes the audit table. Engines differ in column
// types (MySQL's key columns are VARCHAR(255) so they can be indexed, and
// its CREATE TABLE declares the index), in how an older table is migrated
// (MySQL also re-keys it) and in the table format (Spark: USING DELTA).
type AuditSQL interface {
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
}

// CatalogSQL reads what planning needs from the catalog. Engines differ in
// the default-schema expression (none on BigQuery and Spark, which always
// qualify), in DuckDB's empty probe (its catalog's row estimate) and in
// BigQuery's INFORMATION_SCHEMA spelling.
type CatalogSQL interface {
	// DefaultSchemaQuery returns one row naming the schema where relations
	// without a schema live, so that state and data agree on it; "" when
	// the engine always qualifies (BigQuery's default dataset, Spark).
	DefaultSchemaQuery() string
	// EmptyQuery returns the indexes (0-based) of the tables of rels that
	// have no row: one probe per table that stops at its first row.
	EmptyQuery(rels []Relation) string
	// RelationsQuery lists existing relations as (schema, name) rows.
	RelationsQuery() string
	// DescribeQuery wraps a SELECT so that running it returns its columns and
	// no rows.
	DescribeQuery(sql string) string
}

// SchemaSQL changes a destination's columns (on_schema_change) and creates
// schemas.
type SchemaSQL interface {
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
}

// Verifier is what idemc verify needs beyond a Dialect; the runner asserts
// it once. Engines differ in the text type and in how 8 hex digits become
// an integer (PostgreSQL bit(32), MySQL conv, DuckDB a 0x cast) and in
// whether DROP SCHEMA needs CASCADE.
type Verifier interface {
	// Fingerprint returns one row (rows, hash) summarizing a relation's rows
	// matching where ("" for all): order-independent, over every column.
	Fingerprint(r Relation, where string, cols []string) string
	// DropSchema drops a scratch schema and everything in it.
	DropSchema(schema string) string
}

// SeedSQL is how a dialect types a seed's columns: every engine creates a
// seed's table from its kinds (a timestamp has no time zone; MySQL keeps
// microseconds with DATETIME(6); BigQuery says INT64, FLOAT64, BOOL).
type SeedSQL interface {
	SeedType(k seed.Kind) string
}

// SeedLoader is implemented by dialects whose engines load a seed with SQL
// statements, building the table aside and swapping it in (MySQL/MariaDB
// RENAME TABLE, Snowflake SWAP WITH, Spark one CREATE OR REPLACE … AS):
// the engine only executes the load's statements, in order. DuckDB
// (appender), PostgreSQL (COPY) and BigQuery (a load job) have bulk paths
// of their own.
type SeedLoader interface {
	SeedSQL
	SeedLoad(r Relation, t *seed.Table) SeedLoad
}

// SeedLoad is the SQL of one seed load: Prepare, then every Batch, then
// Publish. A batch binds its values as their Go types where the engine's
// driver takes "?" parameters (Args), or carries them as typed literals
// (Spark Connect: Args is nil).
type SeedLoad struct {
	Aside   Relation
	Prepare []string
	Batches iter.Seq[SeedBatch]
	Publish []string
}

// Run executes the load's statements in order through exec, stopping at
// the first error.
func (l SeedLoad) Run(exec func(sql string, args ...any) error) error {
	for _, q := range l.Prepare {
		if err := exec(q); err != nil {
			return err
		}
	}
	if l.Batches != nil {
		for b := range l.Batches {
			if err := exec(b.SQL, b.Args...); err != nil {
				return err
			}
		}
	}
	for _, q := range l.Publish {
		if err := exec(q); err != nil {
			return err
		}
	}
	return nil
}

// SeedBatch is one multi-row INSERT of a seed load.
type SeedBatch struct {
	SQL  string
	Args []any
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
