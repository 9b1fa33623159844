// Package postgres is the PostgreSQL engine (pgx v5).
package postgres

import (
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
)

// Dialect is PostgreSQL's SQL (15 or newer, for MERGE).
type Dialect struct{ sqlgen.Gen }

// NewDialect returns PostgreSQL's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{S: sqlgen.Spelling{
		CurrentSchema: "current_schema()",
		Engine:        "postgres", QuoteOpen: '"', QuoteEnd: '"', TextType: "TEXT",
		NullSafeEq:   func(a, b string) string { return a + " IS NOT DISTINCT FROM " + b },
		DateLit:      func(s string) string { return "DATE '" + s + "'" },
		TimestampLit: func(s string) string { return "TIMESTAMP '" + s + "'" },
		BigInt:       "BIGINT", Timestamp: "TIMESTAMP", Text: "TEXT",
		PartitionIndexDDL: func(table, index, column string) string {
			return "CREATE INDEX IF NOT EXISTS " + index + " ON " + table + " (" + column + ")"
		},
		DropSchemaCascade: true, HexToInt: func(h string) string { return "('x' || " + h + ")::bit(32)::bigint" },
	}}}
}

// Capabilities of PostgreSQL.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: true, Merge: true, MergeBySource: false, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "pg_advisory_xact_lock per unit", TableInPlace: true,
}

// Recipe follows DESIGN §7 for PostgreSQL.
func (d Dialect) Recipe(w *adapters.Write) []adapters.Step {
	return d.Gen.Recipe(d.hooks(), w)
}

// LockKey is the advisory lock key of a unit: the relation and partition.
func (d Dialect) LockKey(w *adapters.Write) string {
	key := d.Qualify(w.Target)
	if w.Window != nil {
		key += "/" + w.Window.Key
	}
	return key
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:  "BEGIN",
		Commit: "COMMIT",
		Lock: func(w *adapters.Write) string {
			return fmt.Sprintf("SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))", d.String(d.LockKey(w)))
		},
		CreateStage: func(stage, sql string) string {
			return fmt.Sprintf("CREATE TEMP TABLE %s ON COMMIT DROP AS\n%s", stage, sql)
		},
		DropStage: func(stage string) string { return "" }, // ON COMMIT DROP
		Table: func(w *adapters.Write) ([]adapters.Step, string) {
			dest := d.Qualify(w.Target)
			return []adapters.Step{
				{Purpose: adapters.Prepare, Comment: "the table, empty, if it does not exist yet", SQL: d.CreateIfMissing(w)},
				{Purpose: adapters.Delete, Comment: "TRUNCATE + INSERT keeps grants and dependent views", SQL: "TRUNCATE " + dest},
				{Purpose: adapters.Insert, Comment: "rebuild the rows", SQL: d.insertSelect(w)},
			}, "SELECT count(*) FROM " + dest
		},
		View: func(w *adapters.Write) []adapters.Step {
			return []adapters.Step{{Purpose: adapters.Publish, Comment: "replace the view",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Upsert: d.MergeSteps,
	}
}

// insertSelect inserts the model's rows by column name when the columns are
// known, so a reordered SELECT still lands in the right columns.
func (d Dialect) insertSelect(w *adapters.Write) string {
	dest := d.Qualify(w.Target)
	if w.Columns == nil {
		return fmt.Sprintf("INSERT INTO %s\n%s", dest, w.Select)
	}
	cols := d.ColumnList(w.Columns, "")
	return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM (\n%s\n) AS idemc_batch", dest, cols, cols, w.Select)
}

// SeedType maps a seed kind to PostgreSQL's type, spelled as
// information_schema.columns reports it (LoadSeed compares the two to keep
// a table whose columns did not change).
func (d Dialect) SeedType(k seed.Kind) string {
	switch k {
	case seed.BigInt:
		return "bigint"
	case seed.Double:
		return "double precision"
	case seed.Boolean:
		return "boolean"
	case seed.Date:
		return "date"
	case seed.Timestamp:
		return "timestamp without time zone"
	}
	return "text"
}

// CreateSeedTable creates a seed's table from its kinds.
func (d Dialect) CreateSeedTable(r adapters.Relation, t *seed.Table) string {
	return fmt.Sprintf("CREATE TABLE %s (%s)", d.Qualify(r), sqlgen.SeedColumnDefs(d, t))
}
