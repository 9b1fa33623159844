// Package duckdb is the embedded default engine: DuckDB through
// github.com/duckdb/duckdb-go/v2, no server and no credentials.
package duckdb

import (
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
)

// Dialect is DuckDB's SQL. DuckDB has transactional DDL and MERGE, so every
// recipe is one transaction: stage, write, checks, audit, commit.
type Dialect struct{ sqlgen.Gen }

// NewDialect returns DuckDB's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{S: sqlgen.Spelling{
		CurrentSchema: "current_schema()",
		Engine:        "duckdb", QuoteOpen: '"', QuoteEnd: '"', TextType: "VARCHAR",
		NullSafeEq:   func(a, b string) string { return a + " IS NOT DISTINCT FROM " + b },
		DateLit:      func(s string) string { return "DATE '" + s + "'" },
		TimestampLit: func(s string) string { return "TIMESTAMP '" + s + "'" },
		BigInt:       "BIGINT", Timestamp: "TIMESTAMP", Text: "VARCHAR",
		DropSchemaCascade: true,
	}}}
}

// Capabilities of DuckDB.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: true, Merge: true, MergeBySource: true, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "database file lock (one writer process)", SingleWriter: true,
}

// SeedType maps a seed kind to DuckDB's type.
func (d Dialect) SeedType(k seed.Kind) string {
	switch k {
	case seed.BigInt:
		return "BIGINT"
	case seed.Double:
		return "DOUBLE"
	case seed.Boolean:
		return "BOOLEAN"
	case seed.Date:
		return "DATE"
	case seed.Timestamp:
		return "TIMESTAMP"
	}
	return "VARCHAR"
}

// Recipe follows DESIGN §7 for DuckDB.
func (d Dialect) Recipe(w *adapters.Write) []adapters.Step {
	return d.Gen.Recipe(d.hooks(), w)
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:  "BEGIN TRANSACTION",
		Commit: "COMMIT",
		CreateStage: func(stage, sql string) string {
			return fmt.Sprintf("CREATE OR REPLACE TEMP TABLE %s AS\n%s", stage, sql)
		},
		DropStage: func(stage string) string { return "DROP TABLE IF EXISTS " + stage },
		Table: func(w *adapters.Write) ([]adapters.Step, string) {
			return []adapters.Step{{Purpose: adapters.Publish, Comment: "rebuild the table inside the transaction",
				SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s AS\n%s", d.Qualify(w.Target), w.Select)}}, "SELECT count(*) FROM " + d.Qualify(w.Target)
		},
		View: func(w *adapters.Write) []adapters.Step {
			return []adapters.Step{{Purpose: adapters.Publish, Comment: "replace the view",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Upsert: d.MergeSteps,
	}
}
