package project

// The engines register themselves; a project names them (the adapters, not
// this package, know which exist and which target settings each reads).
import (
	_ "github.com/idemc/idemc/adapters/bigquery/dialect"
	_ "github.com/idemc/idemc/adapters/duckdb/dialect"
	_ "github.com/idemc/idemc/adapters/mysql/dialect"
	_ "github.com/idemc/idemc/adapters/postgres/dialect"
	_ "github.com/idemc/idemc/adapters/snowflake/dialect"
	_ "github.com/idemc/idemc/adapters/spark/dialect"
)
