// Package dialect is Snowflake's SQL: pure, no driver, so that the compiler
// and the goldens link none (the engine is adapters/snowflake).
package dialect

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is Snowflake's SQL.
type Dialect struct{ sqlgen.Gen }

// NewDialect returns Snowflake's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		Median:        func(x string) string { return "median(" + x + ")" },
		SeedTypes:     sqlgen.SeedTypes{seed.Timestamp: "TIMESTAMP_NTZ"},
		Decimal:       func(p, s int) string { return fmt.Sprintf("NUMBER(%d,%d)", p, s) },
		IdentLimit:    adapters.IdentLimit{Name: 255, Column: 255},
		CurrentSchema: "CURRENT_SCHEMA()",
		Engine:        "snowflake", QuoteOpen: '"', QuoteEnd: '"', TextType: "VARCHAR",
		// MD5 returns lowercase hex; LENGTH counts characters. Dates cast
		// to text as YYYY-MM-DD, the session's DATE_OUTPUT_FORMAT (the
		// engine pins it).
		Key:        sqlgen.KeyFuncs{Length: "LENGTH", Concat: "CONCAT", Hash: "MD5(%s)"},
		QuoteIdent: quoteIdent,
		NullSafeEq: func(a, b string) string { return "EQUAL_NULL(" + a + ", " + b + ")" },
		// TIMESTAMP '…' would follow the account's TIMESTAMP_TYPE_MAPPING;
		// idemc's times are UTC wall-clock values, so say NTZ explicitly.
		TimestampLit: func(s string) string { return "'" + s + "'::TIMESTAMP_NTZ" },
		Timestamp:    "TIMESTAMP_NTZ", Text: "VARCHAR",
		// Snowflake reads \ as an escape inside '…'.
		StringEscapeBackslash: true,
		DeleteFrom:            func(dest, alias string) string { return "DELETE FROM " + dest + " " + alias },
		TypeFamily:            sqlgen.Families(typeFamilies, false),
		TypeFits:              sqlgen.DecimalFits,
		ColumnType:            columnType,
		// An updating MERGE takes the table's lock: two claims of one key
		// run one after the other, the second finding the first's row.
		ClaimMatched: "WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at",
	}}}
}

// typeFamilies are Snowflake's type names by family, as the engine reports
// a result column (NUMBER(p, s) for the driver's FIXED, REAL, TEXT) and as
// ColumnsQuery does (NUMBER(p, s), FLOAT, TEXT). Every integer is a NUMBER;
// a NUMBER destination must hold the batch's integer digits and scale
// (DecimalFits). Strings of any length are one family.
var typeFamilies = map[string][]string{
	"number": {"NUMBER", "FIXED", "DECIMAL", "NUMERIC", "INT", "INTEGER", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT"},
	"float":  {"FLOAT", "FLOAT4", "FLOAT8", "DOUBLE", "DOUBLE PRECISION", "REAL"},
	"text":   {"VARCHAR", "TEXT", "STRING", "CHAR", "CHARACTER", "NCHAR", "NVARCHAR"},
	"binary": {"BINARY", "VARBINARY"}, "boolean": {"BOOLEAN"}, "date": {"DATE"}, "time": {"TIME"},
	"timestamp_ntz": {"TIMESTAMP_NTZ", "DATETIME", "TIMESTAMP"}, "timestamp_ltz": {"TIMESTAMP_LTZ"},
	"timestamp_tz": {"TIMESTAMP_TZ"}, "variant": {"VARIANT"}, "object": {"OBJECT"}, "array": {"ARRAY"},
}

// RetypeColumns rewrites the table from itself with the changed columns
// cast: Snowflake's ALTER COLUMN … SET DATA TYPE only widens a NUMBER or a
// VARCHAR. CREATE OR REPLACE is one atomic statement (a value that cannot
// be cast fails it and leaves the table); COPY GRANTS keeps the grants.
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s COPY GRANTS AS\n%s", d.Qualify(w.Target), d.RewriteSelect(w, cols, changes))}
}

// Capabilities of Snowflake.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: false, Merge: true, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "a claimed row of idemc_locks per unit (waits while a live run holds it, takes over a dead run's); the run id is the QUERY_TAG",
	TableInPlace: true, UnitClaim: true,
}

// quoteIdent quotes an identifier. Snowflake stores an unquoted name in
// upper case, and a model's SELECT names its columns unquoted, so a name that
// would be valid unquoted is quoted in upper case ("event_date" →
// "EVENT_DATE"): the quoted form then names the same column as the model's
// unquoted one, and every name is still quoted (safe for reserved words).
// Any other name keeps its exact spelling, and a name already in quotes
// (ExactName: as the catalog or the driver spelled it) is kept as it is.
func quoteIdent(ident string) string {
	if len(ident) >= 2 && ident[0] == '"' && ident[len(ident)-1] == '"' {
		return ident
	}
	if SimpleIdent(ident) {
		ident = strings.ToUpper(ident)
	}
	return `"` + strings.ReplaceAll(ident, `"`, `""`) + `"`
}

// ExactName is a column name as the catalog or the driver reports it
// (stored spelling), in the form quoteIdent keeps exactly: a name stored in
// upper case is itself, any other (created quoted: "event_date",
// "Amount") is quoted already, so that it is never upper-cased into
// another column's name.
func ExactName(stored string) string {
	if SimpleIdent(stored) && stored == strings.ToUpper(stored) {
		return stored
	}
	return `"` + strings.ReplaceAll(stored, `"`, `""`) + `"`
}

// SimpleIdent reports whether Snowflake would accept ident unquoted
// (letters, digits, _ and $, not starting with a digit or $).
func SimpleIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '_':
		case (c >= '0' && c <= '9' || c == '$') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Recipe follows DESIGN §7 for Snowflake: the shared shape, whose DDL
// sqlgen moves out of the transaction (no TransactionalDDL), tagged.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return withQueryTag(d, w, d.Gen.Recipe(d.hooks(), w))
}

// QueryTag is the QUERY_TAG a unit's statements carry: JSON with the run id
// first, so Snowflake's QUERY_HISTORY can be filtered by run.
func QueryTag(w *plan.Write) string {
	run, attempt := "<run_id>", int64(0)
	if w.Audit != nil {
		run, attempt = w.Audit.RunID, w.Audit.Attempt
	}
	part := ""
	if w.Window != nil {
		part = w.Window.Key
	}
	b, _ := json.Marshal(struct {
		Run       string `json:"idemc_run"`
		Model     string `json:"model"`
		Partition string `json:"partition,omitempty"`
		Attempt   int64  `json:"attempt,omitempty"`
	}{run, w.Model, part, attempt})
	return string(b)
}

// withQueryTag sets the session's QUERY_TAG before the unit and unsets it
// after (sessions are pooled).
func withQueryTag(d Dialect, w *plan.Write, steps []plan.Step) []plan.Step {
	out := make([]plan.Step, 0, len(steps)+2)
	out = append(out, plan.Step{Purpose: plan.Prepare, Comment: "tag this unit's queries with the run id (QUERY_HISTORY)",
		SQL: "ALTER SESSION SET QUERY_TAG = " + d.String(QueryTag(w))})
	out = append(out, steps...)
	return append(out, plan.Step{Purpose: plan.Cleanup, Comment: "untag the pooled session", SQL: "ALTER SESSION UNSET QUERY_TAG"})
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:  beginSQL,
		Commit: "COMMIT",
		CreateStage: func(stage, sql string) string {
			// Session-scoped and created before BEGIN (DDL commits).
			return fmt.Sprintf("CREATE OR REPLACE TEMPORARY TABLE %s AS\n%s", stage, sql)
		},
		DropStage: func(stage string) string { return "DROP TABLE IF EXISTS " + stage },
		Table: func(w *plan.Write) ([]plan.Step, string) {
			dest := d.Qualify(w.Target)
			return []plan.Step{
				{Purpose: plan.Prepare, Comment: "the table, empty, if it does not exist yet (DDL, before BEGIN)", SQL: d.CreateIfMissing(w)},
				{Purpose: plan.Publish, Comment: "replace every row inside the transaction (INSERT OVERWRITE is DML: it rolls back with the checks)",
					SQL: "INSERT OVERWRITE INTO " + d.byName(w)},
			}, "SELECT count(*) FROM " + dest
		},
		View: func(w *plan.Write) []plan.Step {
			return []plan.Step{{Purpose: plan.Publish, Comment: "replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
	}
}

// byName is the destination and the model's rows for an INSERT, by column
// name when the columns are known: the runner first syncs the table's
// columns to the model's (TableInPlace), which appends new ones at the end.
func (d Dialect) byName(w *plan.Write) string {
	dest := d.Qualify(w.Target)
	if w.Columns == nil {
		return dest + "\n" + w.Select
	}
	cols := d.ColumnList(w.Columns, "")
	return fmt.Sprintf("%s (%s)\nSELECT %s FROM (\n%s\n) AS idemc_batch", dest, cols, cols, w.Select)
}

// columnType maps gosnowflake's result type names (FIXED, REAL, TEXT, …)
// to column types; a NUMBER(p,s) from the engine passes through.
func columnType(t string) string {
	switch strings.ToUpper(t) {
	case "FIXED":
		return "NUMBER(38, 0)"
	case "REAL":
		return "FLOAT"
	case "TEXT", "":
		return "VARCHAR"
	}
	return t
}

// ColumnsQuery lists a relation's columns (names as stored: upper case for
// names created unquoted), a NUMBER with its precision and scale.
func (d Dialect) ColumnsQuery(r plan.Relation) string {
	fold := func(s string) string {
		if SimpleIdent(s) {
			return strings.ToUpper(s)
		}
		return s
	}
	schema := d.String(fold(r.Schema))
	if r.Schema == "" {
		schema = d.S.CurrentSchema
	}
	q := fmt.Sprintf("SELECT column_name, CASE WHEN data_type = 'NUMBER' THEN 'NUMBER(' || numeric_precision || ', ' || numeric_scale || ')' ELSE data_type END FROM information_schema.columns WHERE table_schema = %s AND table_name = %s ORDER BY ordinal_position",
		schema, d.String(fold(r.Name)))
	if r.Database != "" {
		q = strings.Replace(q, "information_schema.columns", d.Quote(r.Database)+".information_schema.columns", 1)
	}
	return q
}

var _ adapters.Dialect = Dialect{}

// CopyTable copies a table aside: a zero-copy CLONE with its rows, or an
// empty table LIKE it.
func (d Dialect) CopyTable(aside, dest plan.Relation, rows bool) []string {
	if rows {
		return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s CLONE %s", d.Qualify(aside), d.Qualify(dest))}
	}
	return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s LIKE %s", d.Qualify(aside), d.Qualify(dest))}
}

// SwapTable exchanges the checked copy and the destination in one
// metadata operation (SWAP WITH keeps the grants with the name); the
// previous table is then at the copy's name, which the unit drops after.
func (d Dialect) SwapTable(dest, aside, old plan.Relation) string {
	return fmt.Sprintf("ALTER TABLE %s SWAP WITH %s", d.Qualify(aside), d.Qualify(dest))
}

var _ adapters.AsideBuilder = Dialect{}

// SwapKind puts a view in a table's place or a table in a view's: SWAP
// WITH takes tables only and CREATE OR REPLACE cannot replace an object of
// another kind, so the destination is renamed to old, then the checked
// new relation to the destination (two metadata operations, not one: the
// runner restores a destination a dead run left at old, and drops old).
func (d Dialect) SwapKind(w *plan.Write, aside, old plan.Relation, fromView bool) []string {
	return sqlgen.RenameSwap(d.RenameRelation, w, aside, old, fromView)
}

// RenameRelation is ALTER TABLE or ALTER VIEW IF EXISTS … RENAME TO: the
// runner's restore after a unit that failed before its swap finds nothing
// to rename, which is no error.
func (d Dialect) RenameRelation(from, to plan.Relation, view bool) string {
	return d.AlterRename(from, to, view, "IF EXISTS ")
}

var _ adapters.KindSwapper = Dialect{}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "snowflake", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"account", "user", "password", "role", "warehouse", "database", "private_key_path", "host", "port", "protocol"},
		Docs:     "DDL (destination, temporary stage) before BEGIN; delete/insert or MERGE, checks and audit in one transaction on one session; full rebuilds INSERT OVERWRITE inside it; QUERY_TAG = run id",
	})
}

// beginSQL starts the write's transaction.
const beginSQL = "BEGIN TRANSACTION"

// Begin is the statement that starts a unit's transaction.
func (d Dialect) Begin() string { return beginSQL }

// SeedLoad builds a table aside (one name per load: concurrent loads never
// share it) from the seed in multi-row INSERTs with values bound in their
// kinds, then swaps it in with ALTER TABLE … SWAP WITH (atomic).
func (d Dialect) SeedLoad(r plan.Relation, t *seed.Table) adapters.SeedLoad {
	return d.RunSeedLoad(r, t, "")
}

// RunSeedLoad is SeedLoad by the run whose tag is tag (RunTag; ""
// random): its table aside is r__idemc_new_<tag>, which the next run drops
// if the load died with its run (StageRun).
func (d Dialect) RunSeedLoad(r plan.Relation, t *seed.Table, tag string) adapters.SeedLoad {
	newRel, prep := d.SeedAsideTagged(r, tag)
	dest, aside := d.Qualify(r), d.Qualify(newRel)
	return adapters.SeedLoad{
		Aside:   newRel,
		Prepare: append(prep, fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s)", aside, sqlgen.SeedColumnDefs(d, t))),
		Batches: d.BoundSeedBatches(newRel, t, sqlgen.SeedBatchRows),
		Publish: []string{
			fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s LIKE %s", dest, aside),
			fmt.Sprintf("ALTER TABLE %s SWAP WITH %s", dest, aside),
			"DROP TABLE IF EXISTS " + aside,
		},
	}
}

// StageRun reports a seed load's table aside of dest named by a run
// (RunSeedLoad), and the run's tag. Snowflake's stages are temporary
// tables, gone with their session; a seed's table aside is a permanent
// one, which a load killed with its run leaves behind.
func (d Dialect) StageRun(dest, name string) (string, bool) { return sqlgen.SeedLoadRun(dest, name) }

// RunTag is the tag a run's seed-load tables end with.
func (d Dialect) RunTag(runID string) string { return sqlgen.RunTag(runID) }

var _ adapters.StageTables = Dialect{}

var _ adapters.SeedLoader = Dialect{}
