// Package dialect is DuckDB's SQL: pure, no driver, so that the compiler
// and the goldens link none (the engine is adapters/duckdb).
package dialect

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is DuckDB's SQL. DuckDB has transactional DDL and MERGE, so every
// recipe is one transaction: stage, write, checks, audit, commit.
type Dialect struct{ sqlgen.Gen }

// NewDialect returns DuckDB's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		Median:        func(x string) string { return "median(" + x + ")" },
		CurrentSchema: "current_schema()",
		Engine:        "duckdb", QuoteOpen: '"', QuoteEnd: '"', TextType: "VARCHAR",
		Latest:            sqlgen.LatestOnConflict,
		Text:              "VARCHAR",
		DropSchemaCascade: true,
		TypeFamily:        sqlgen.Families(typeFamilies, true),
		TypeFits:          sqlgen.DecimalFits,
	}}}
}

// typeFamilies are DuckDB's type names by family: the driver and the
// catalog both give canonical names (INTEGER, DECIMAL(18,3), VARCHAR), so a
// name not listed (a LIST, a STRUCT) is its own family. NULL, the type of a
// bare NULL literal, is unknown. Varchar lengths are not enforced by DuckDB;
// decimals are compared by precision and scale (DecimalFits).
var typeFamilies = map[string][]string{
	"tinyint": {"TINYINT", "INT1"}, "smallint": {"SMALLINT", "INT2", "SHORT"},
	"integer": {"INTEGER", "INT", "INT4", "SIGNED"}, "bigint": {"BIGINT", "INT8", "LONG"},
	"hugeint": {"HUGEINT", "INT128"}, "decimal": {"DECIMAL", "NUMERIC"},
	"float": {"FLOAT", "FLOAT4", "REAL"}, "double": {"DOUBLE", "FLOAT8"},
	"varchar": {"VARCHAR", "TEXT", "STRING", "CHAR", "BPCHAR"}, "boolean": {"BOOLEAN", "BOOL", "LOGICAL"},
	"timestamp": {"TIMESTAMP", "DATETIME"}, "timestamptz": {"TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE"},
	"blob": {"BLOB", "BYTEA", "BINARY", "VARBINARY"},
	"":     {"NULL"},
}

// RetypeColumns alters one column per statement (DuckDB's ALTER TABLE takes
// one command); several changes run in one transaction, so a value that
// cannot be cast leaves every column as it was (the runner rolls back).
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	var out []string
	for _, c := range changes {
		q := d.Quote(c.Name)
		out = append(out, fmt.Sprintf("ALTER TABLE %s ALTER %s SET DATA TYPE %s USING CAST(%s AS %s)", d.Qualify(w.Target), q, c.To, q, c.To))
	}
	if len(out) > 1 {
		out = append([]string{"BEGIN TRANSACTION"}, append(out, "COMMIT")...)
	}
	return out
}

// recreate replaces the destination's definition and rows with the staged
// batch, inside the write's transaction (full refresh, column types changed).
func (d Dialect) recreate(w *plan.Write, stage string) []plan.Step {
	return []plan.Step{{Purpose: plan.Publish, Comment: "full refresh, column types changed: replace the table's definition and rows inside the transaction",
		SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s AS\nSELECT %s FROM %s", d.Qualify(w.Target), d.ColumnList(w.Columns, ""), stage)}}
}

// Capabilities of DuckDB.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: true, Merge: true, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "database file lock (one writer process)", SingleWriter: true,
	ReplaceDefinition: true,
}

// Recipe follows DESIGN §7 for DuckDB.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return d.Gen.Recipe(d.hooks(), w)
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:  beginSQL,
		Commit: "COMMIT",
		CreateStage: func(stage, sql string) string {
			return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS\n%s", stage, sql)
		},
		DropStage: func(stage string) string { return "DROP TABLE IF EXISTS " + stage },
		Table: func(w *plan.Write) ([]plan.Step, string) {
			// Its answer is the rows it wrote (Counts): the count query
			// after it is sent only if an engine answers otherwise.
			return []plan.Step{{Purpose: plan.Publish, Comment: "rebuild the table inside the transaction",
				SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s AS\n%s", d.Qualify(w.Target), w.Select), Counts: true}}, "SELECT count(*) FROM " + d.Qualify(w.Target)
		},
		View: func(w *plan.Write) []plan.Step {
			return []plan.Step{{Purpose: plan.Publish, Comment: "replace the view",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Recreate: d.recreate,
	}
}

// EmptyQuery reads the tables' row counts from the catalog (duckdb_tables),
// one query whatever their number: DuckDB plans each EXISTS probe of the
// shared query in about 0.1 ms, which would double the cost of an
// up-to-date build. The count is exact once the deleting transaction was
// checkpointed, which DuckDB does when the process that emptied the table
// closes the file — and no other process can hold it while idemc runs.
func (d Dialect) EmptyQuery(rels []plan.Relation) string {
	vals := make([]string, len(rels))
	for i, r := range rels {
		vals[i] = fmt.Sprintf("(%d, %s, %s)", i, d.String(r.Schema), d.String(r.Name))
	}
	return "SELECT r.i FROM (VALUES " + strings.Join(vals, ", ") + ") AS r(i, s, t)\n" +
		"JOIN duckdb_tables() AS d ON d.schema_name = coalesce(nullif(r.s, ''), current_schema()) AND d.table_name = r.t\n" +
		"WHERE d.estimated_size = 0"
}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "duckdb", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"path"},
		Docs:     "one transaction per unit (DDL included); the database file admits one writer process",
	})
}

var _ adapters.Dialect = Dialect{}

// beginSQL starts the write's transaction.
const beginSQL = "BEGIN TRANSACTION"

// Begin is the statement that starts a unit's transaction.
func (d Dialect) Begin() string { return beginSQL }
