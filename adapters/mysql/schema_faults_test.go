package mysql_test

import (
	"testing"

	"github.com/idemc/idemc/adapters/conformance"
)

// TestFaultsSchema runs the schema-change-then-fail trials (issue 17): a
// failed or killed unit that changed its destination's columns leaves them,
// and its rows, as they were; the rerun equals a clean build.
func TestFaultsSchema(t *testing.T) {
	conformance.SchemaFaults(t, targetmysql(t))
}

func targetmysql(t *testing.T) conformance.Target {
	dsn := conformance.Live(t, "mysql", "IDEMC_MYSQL_DSN", "root@tcp(127.0.0.1:3306)/test")
	return conformance.Target{
		Engine: "mysql", Concurrent: true,
		Settings: func(string) map[string]string { return map[string]string{"dsn": dsn} },
	}
}
