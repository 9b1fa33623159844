// Package dialect is PostgreSQL's SQL: pure, no driver, so that the
// compiler and the goldens link none (the engine is adapters/postgres).
package dialect

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is PostgreSQL's SQL (15 or newer, for MERGE).
type Dialect struct{ sqlgen.Gen }

// NewDialect returns PostgreSQL's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		// PostgreSQL has no median(): the ordered-set aggregate is it.
		Median:        func(x string) string { return "percentile_cont(0.5) WITHIN GROUP (ORDER BY " + x + ")" },
		SeedTypes:     sqlgen.SeedTypes{seed.BigInt: "bigint", seed.Double: "double precision", seed.Boolean: "boolean", seed.Date: "date", seed.Timestamp: "timestamp without time zone", seed.Text: "text"},
		IdentLimit:    adapters.IdentLimit{Name: 63, Column: 63, Bytes: true}, // NAMEDATALEN-1; longer names are cut silently
		CurrentSchema: "current_schema()",
		Engine:        "postgres", QuoteOpen: '"', QuoteEnd: '"', TextType: "TEXT",
		Latest:  sqlgen.LatestOnConflict,
		Text:    "TEXT",
		Decimal: func(p, s int) string { return fmt.Sprintf("numeric(%d,%d)", p, s) },
		PartitionIndexDDL: func(table, index, column string) string {
			return "CREATE INDEX IF NOT EXISTS " + index + " ON " + table + " (" + column + ")"
		},
		AuditIndexDDL:     auditIndexDDL,
		DropSchemaCascade: true, HexToInt: func(h string) string { return "('x' || " + h + ")::bit(32)::bigint" },
		TypeFamily: typeFamily,
	}}}
}

// typeFamilies are PostgreSQL's type names by family, as pgx names a
// result column (INT8, BPCHAR, TIMESTAMPTZ) and as information_schema does
// (bigint, character, timestamp with time zone). Every string type is one
// family and lengths are not compared: pgx does not report a result's
// varchar length, and a value too long for the destination fails the
// insert (the unit rolls back). Types not listed (enums, domains,
// extensions) are unknown: information_schema says USER-DEFINED.
var typeFamilies = map[string][]string{
	"smallint": {"SMALLINT", "INT2", "SMALLSERIAL"}, "integer": {"INTEGER", "INT", "INT4", "SERIAL"},
	"bigint": {"BIGINT", "INT8", "BIGSERIAL"}, "numeric": {"NUMERIC", "DECIMAL"},
	"real": {"REAL", "FLOAT4"}, "double": {"DOUBLE PRECISION", "FLOAT8", "FLOAT"},
	"text":    {"TEXT", "VARCHAR", "CHARACTER VARYING", "BPCHAR", "CHARACTER", "CHAR", "NAME"},
	"boolean": {"BOOLEAN", "BOOL"}, "date": {"DATE"},
	"time": {"TIME", "TIME WITHOUT TIME ZONE"}, "timetz": {"TIMETZ", "TIME WITH TIME ZONE"},
	"timestamp":   {"TIMESTAMP", "TIMESTAMP WITHOUT TIME ZONE"},
	"timestamptz": {"TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE"},
	"interval":    {"INTERVAL"}, "uuid": {"UUID"}, "bytea": {"BYTEA"}, "json": {"JSON"}, "jsonb": {"JSONB"},
	"inet": {"INET"}, "cidr": {"CIDR"}, "money": {"MONEY"}, "array": {"ARRAY"},
}

var families = sqlgen.Families(typeFamilies, false)

// typeFamily also reads pgx's array names (_INT4): information_schema only
// says ARRAY, so arrays are compared as arrays, whatever their elements.
func typeFamily(t string) string {
	if base, _ := sqlgen.TypeName(t); strings.HasPrefix(base, "_") || strings.HasSuffix(base, "[]") {
		return "array"
	}
	return families(t)
}

// Capabilities of PostgreSQL.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: true, Merge: true, UnitLock: true, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "pg_advisory_xact_lock per unit", TableInPlace: true,
	ReplaceDefinition: true,
}

// Recipe follows DESIGN §7 for PostgreSQL.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return d.Gen.Recipe(d.hooks(), w)
}

// LockKey is the advisory lock key of a unit: the relation and partition.
func (d Dialect) LockKey(w *plan.Write) string {
	key := d.Qualify(w.Target)
	if w.Window != nil {
		key += "/" + w.Window.Key
	}
	return key
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:  beginSQL,
		Commit: "COMMIT",
		Lock: func(w *plan.Write) string {
			return fmt.Sprintf("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", d.String(d.LockKey(w)))
		},
		CreateStage: func(stage, sql string) string {
			return fmt.Sprintf("CREATE TEMP TABLE %s ON COMMIT DROP AS\n%s", stage, sql)
		},
		DropStage: func(stage string) string { return "" }, // ON COMMIT DROP
		Table: func(w *plan.Write) ([]plan.Step, string) {
			dest := d.Qualify(w.Target)
			if w.Recreate {
				return d.recreateTable(w), "SELECT count(*) FROM " + dest
			}
			return []plan.Step{
				{Purpose: plan.Prepare, Comment: "the table, empty, if it does not exist yet", SQL: d.CreateIfMissing(w)},
				{Purpose: plan.Delete, Comment: "TRUNCATE + INSERT keeps grants and dependent views", SQL: "TRUNCATE " + dest},
				{Purpose: plan.Insert, Comment: "rebuild the rows", SQL: d.InsertByName(w)},
			}, "SELECT count(*) FROM " + dest
		},
		View: func(w *plan.Write) []plan.Step {
			if w.Recreate {
				return d.recreateView(w)
			}
			return []plan.Step{{Purpose: plan.Publish, Comment: "replace the view",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Recreate: d.recreate,
	}
}

// DropTable drops a table with the views that read it (CASCADE): they are
// bound to its columns and cannot outlive its old definition. The runner
// reads them first (DependentViewsQuery) and recreates them.
func (d Dialect) DropTable(r plan.Relation) string {
	return "DROP TABLE IF EXISTS " + d.Qualify(r) + " CASCADE"
}

// RetypeColumns alters the columns in one statement; when views read the
// table (w.Views, read by the runner) they block it, so they are dropped
// and recreated around it in one transaction: the retype and the views
// change together or not at all.
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	alter := d.Gen.RetypeColumns(w, cols, changes)
	if len(w.Views) == 0 {
		return alter
	}
	out := []string{"BEGIN"}
	for _, v := range w.Views {
		out = append(out, "DROP VIEW IF EXISTS "+d.Qualify(v.Relation)+" CASCADE")
	}
	out = append(out, alter...)
	for _, v := range w.Views {
		out = append(out, d.CreateView(v))
	}
	return append(out, "COMMIT")
}

// DependentViewsQuery lists the views that read r, directly or through
// other views, deepest last: a view is created after every view it reads.
// Materialized views are not listed (CASCADE drops them, and their data
// would have to be rebuilt).
func (d Dialect) DependentViewsQuery(r plan.Relation) string {
	return fmt.Sprintf(`WITH RECURSIVE deps (oid, depth) AS (
  SELECT rw.ev_class, 1 FROM pg_depend dep JOIN pg_rewrite rw ON rw.oid = dep.objid
  WHERE dep.classid = 'pg_rewrite'::regclass AND dep.refobjid = to_regclass(%s) AND rw.ev_class <> dep.refobjid
  UNION
  SELECT rw.ev_class, deps.depth + 1 FROM deps JOIN pg_depend dep ON dep.refobjid = deps.oid JOIN pg_rewrite rw ON rw.oid = dep.objid
  WHERE dep.classid = 'pg_rewrite'::regclass AND rw.ev_class <> dep.refobjid
)
SELECT n.nspname, c.relname, pg_get_viewdef(c.oid) FROM deps
JOIN pg_class c ON c.oid = deps.oid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind = 'v'
GROUP BY n.nspname, c.relname, c.oid
ORDER BY max(deps.depth), n.nspname, c.relname`, d.String(d.Qualify(r)))
}

// CreateView creates a view from its catalog definition (pg_get_viewdef
// ends it with a semicolon).
func (d Dialect) CreateView(v plan.ViewDef) string {
	return fmt.Sprintf("CREATE VIEW %s AS\n%s", d.Qualify(v.Relation), strings.TrimRight(strings.TrimSpace(v.SQL), ";"))
}

var _ adapters.ViewBinder = Dialect{}

// recreateSteps drop the destination inside the write's transaction, create
// it with create, and recreate the views that read it.
func (d Dialect) recreateSteps(w *plan.Write, create, comment string) []plan.Step {
	steps := []plan.Step{
		{Purpose: plan.Delete, Comment: "column types changed: drop the table to recreate it, with the views that read it (CASCADE)", SQL: d.DropTable(w.Target)},
		{Purpose: plan.Insert, Comment: comment, SQL: create},
	}
	for _, v := range w.Views {
		steps = append(steps, plan.Step{Purpose: plan.Publish, Comment: "recreate the view " + v.Relation.Schema + "." + v.Relation.Name + ", dropped with the table", SQL: d.CreateView(v)})
	}
	return steps
}

// recreateView replaces a view whose columns changed (CREATE OR REPLACE
// VIEW can only add columns at the end), with the views that read it.
func (d Dialect) recreateView(w *plan.Write) []plan.Step {
	steps := []plan.Step{
		{Purpose: plan.Delete, Comment: "the view's columns changed: drop it, with the views that read it (CASCADE)", SQL: "DROP VIEW IF EXISTS " + d.Qualify(w.Target) + " CASCADE"},
		{Purpose: plan.Publish, Comment: "create the view with its new columns", SQL: fmt.Sprintf("CREATE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)},
	}
	for _, v := range w.Views {
		steps = append(steps, plan.Step{Purpose: plan.Publish, Comment: "recreate the view " + v.Relation.Schema + "." + v.Relation.Name + ", dropped with it", SQL: d.CreateView(v)})
	}
	return steps
}

// recreateTable rebuilds a table model whose column types changed: its new
// definition and rows in the transaction, so a failed check keeps the old
// table and its views.
func (d Dialect) recreateTable(w *plan.Write) []plan.Step {
	return d.recreateSteps(w, fmt.Sprintf("CREATE TABLE %s AS\n%s", d.Qualify(w.Target), w.Select), "recreate the table with the model's columns and rows")
}

// recreate is an unpartitioned full refresh whose column types changed: the
// staged batch becomes the table, in the transaction.
func (d Dialect) recreate(w *plan.Write, stage string) []plan.Step {
	return d.recreateSteps(w, fmt.Sprintf("CREATE TABLE %s AS\nSELECT %s FROM %s", d.Qualify(w.Target), d.ColumnList(w.Columns, ""), stage),
		"full refresh: recreate the table with the batch's columns and rows")
}

// CreateSeedTable creates a seed's table from its kinds.
func (d Dialect) CreateSeedTable(r plan.Relation, t *seed.Table) string {
	return fmt.Sprintf("CREATE TABLE %s (%s)", d.Qualify(r), sqlgen.SeedColumnDefs(d, t))
}

// auditIndexDDL creates the audit table's unit-key index when it is
// missing. CREATE INDEX IF NOT EXISTS would take a SHARE lock on the audit
// table before finding the index there, on every build, waiting for the
// open unit transactions of concurrent runs; the catalog check takes none.
func auditIndexDDL(schema, table string) string {
	quote := func(id string) string { return `"` + strings.ReplaceAll(id, `"`, `""`) + `"` }
	index := quote("idemc_audit_unit")
	if schema != "" {
		index = quote(schema) + "." + index
	}
	return fmt.Sprintf(`DO $idemc$ BEGIN
  IF to_regclass(%s) IS NULL THEN
    CREATE INDEX idemc_audit_unit ON %s (job_name, partition_key, run_id);
  END IF;
END $idemc$`, "'"+strings.ReplaceAll(index, "'", "''")+"'", table)
}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "postgres", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"dsn", "password"},
		Docs:     "one transaction per unit under pg_advisory_xact_lock; TRUNCATE + INSERT keeps grants",
	})
}

var _ adapters.Dialect = Dialect{}

// beginSQL starts the write's transaction.
const beginSQL = "BEGIN"

// Begin is the statement that starts a unit's transaction.
func (d Dialect) Begin() string { return beginSQL }
