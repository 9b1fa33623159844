package conformance

import (
	"context"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
)

// The catalog as the harness reads it: information_schema where the engine
// has one, Spark's commands where it does not (open-source Spark has no
// information_schema; Unity Catalog's is Databricks'). Names and types come
// back as each engine spells them; the scenarios compare types with the
// dialect's SameType.

// noInfoSchema: the engine has no information_schema.
func (e *env) noInfoSchema() bool { return e.tgt.Engine == "spark" }

// column is a column's name and type as the catalog spells them.
type column struct{ name, typ string }

// columnsOf lists a table's columns in their order; none when the table
// (or its schema) does not exist.
func (e *env) columnsOf(table string) []column {
	e.t.Helper()
	if !e.noInfoSchema() {
		rows := e.query("SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = " + e.d.String(e.schema) + " AND table_name = " + e.d.String(table) + " ORDER BY ordinal_position")
		out := make([]column, len(rows))
		for i, r := range rows {
			out[i] = column{r[0], r[1]}
		}
		return out
	}
	rows, err := e.tryQuery("DESCRIBE TABLE " + e.rel(table))
	if err != nil {
		if msg := err.Error(); strings.Contains(msg, "TABLE_OR_VIEW_NOT_FOUND") || strings.Contains(msg, "SCHEMA_NOT_FOUND") {
			return nil
		}
		e.t.Fatal(err)
	}
	var out []column
	for _, r := range rows {
		// The columns end at a blank row or a "# Partition Information"
		// section, which repeats the partition columns.
		if len(r) < 2 || r[0] == "" || strings.HasPrefix(r[0], "#") {
			break
		}
		out = append(out, column{r[0], r[1]})
	}
	return out
}

// tables lists the names of the schema's tables and views.
func (e *env) tables() []string {
	e.t.Helper()
	var out []string
	if !e.noInfoSchema() {
		for _, r := range e.query("SELECT table_name FROM information_schema.tables WHERE table_schema = " + e.d.String(e.schema)) {
			out = append(out, r[0])
		}
		return out
	}
	rows, err := e.tryQuery("SHOW TABLES IN " + e.d.Quote(e.schema))
	if err != nil {
		if strings.Contains(err.Error(), "SCHEMA_NOT_FOUND") {
			return nil
		}
		e.t.Fatal(err)
	}
	for _, r := range rows {
		// namespace, tableName, isTemporary: a temporary view is the
		// session's, not the schema's.
		if len(r) >= 3 && r[2] != "true" {
			out = append(out, r[1])
		}
	}
	return out
}

// schemaExists reports whether the scenario's schema exists.
func (e *env) schemaExists() bool {
	e.t.Helper()
	if e.noInfoSchema() {
		return len(e.query("SHOW SCHEMAS LIKE "+e.d.String(e.schema))) > 0
	}
	return e.query("SELECT count(*) FROM information_schema.schemata WHERE schema_name = " + e.d.String(e.schema))[0][0] != "0"
}

// textType is the text type the schema scenarios compare a column with.
func (e *env) textType() string {
	if e.tgt.Engine == "spark" {
		return "STRING"
	}
	return "TEXT"
}

// tryQuery is query returning the error instead of failing the test.
func (e *env) tryQuery(q string) ([][]string, error) {
	e.t.Helper()
	defer traceHarness(time.Now(), q)
	s, done := e.session()
	defer done()
	_, rows, err := s.Query(context.Background(), q, 0)
	return rows, err
}

// session opens a connection and a session on the target; done closes
// both.
func (e *env) session() (adapters.Session, func()) {
	e.t.Helper()
	ad, _ := adapters.Lookup(e.tgt.Engine)
	eng, err := ad.Open(context.Background(), e.tgt.Settings(e.dir))
	if err != nil {
		e.t.Fatal(err)
	}
	s, err := eng.Session(context.Background())
	if err != nil {
		eng.Close()
		e.t.Fatal(err)
	}
	return s, func() { s.Close(); eng.Close() }
}
