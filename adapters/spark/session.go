package spark

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/spark/dialect"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Session is one Spark session.
type Session struct {
	x executor
	d dialect.Dialect
	e *Engine // released to on Close; nil in tests
	// failed: a statement failed, so session settings (a txnAppId) may be
	// left set: the session is not reused.
	failed bool
	// txn: the Delta idempotent-write id is set on the session. Delta
	// applies it to every write until it is reset, and skips, silently,
	// a write of an (app id, version) the table has seen: a publish that
	// failed must not leave it set for what the unit runs next (its
	// claim's release and, on a retry, its new claim, which Delta would
	// then skip, leaving the unit waiting for a claim nobody holds).
	txn bool
}

// txnConf is the prefix of the session settings of Delta's idempotent
// writes (txnAppId, txnVersion).
const txnConf = "spark.databricks.delta.write.txn"

// exec runs one statement, noting a failure; a failed statement while the
// idempotent-write id is set resets it.
func (s *Session) exec(ctx context.Context, q string) error {
	_, err := s.run(ctx, q, false)
	return err
}

// run is exec, returning the rows written when counted (-1 otherwise).
func (s *Session) run(ctx context.Context, q string, counted bool) (int64, error) {
	t := strings.TrimSpace(q)
	switch {
	case strings.HasPrefix(t, "SET "+txnConf):
		s.txn = true
	case strings.HasPrefix(t, "RESET "+txnConf+"AppId"):
		s.txn = false
	}
	n := int64(-1)
	var err error
	if counted {
		n, err = s.x.written(ctx, q)
	} else {
		err = s.x.exec(ctx, q)
	}
	if err != nil {
		s.failed = true
		if s.txn {
			s.txn = false
			_ = s.x.exec(context.WithoutCancel(ctx), "RESET "+txnConf+"AppId")
			_ = s.x.exec(context.WithoutCancel(ctx), "RESET "+txnConf+"Version")
		}
	}
	return n, err
}

func (s *Session) query(ctx context.Context, q string) ([]string, []string, [][]any, error) {
	cols, types, rows, err := s.x.query(ctx, q)
	if err != nil {
		s.failed = true
	}
	return cols, types, rows, err
}

// Exec runs one step as it is ("" is nothing to do: Spark has no
// transaction to roll back); a check is a query whose rows are its
// failures. Affected rows come from the metrics row of a MERGE, UPDATE or
// DELETE that claims, publishes or counts (one more round trip, 18-32 ms live,
// saving the claim's holder read and the unit's count query); an INSERT
// returns none and every other statement skips it: -1.
func (s *Session) Exec(ctx context.Context, st *plan.Step) (plan.Result, error) {
	if st.Check != nil {
		cols, rows, err := s.Query(ctx, st.SQL, sqlgen.SampleLimit)
		return plan.Result{Affected: -1, Columns: cols, Rows: rows}, err
	}
	if strings.TrimSpace(st.SQL) == "" {
		return plan.Result{}, nil
	}
	n, err := s.run(ctx, st.SQL, counted(st))
	if err != nil {
		return plan.Result{}, err
	}
	return plan.Result{Affected: n}, nil
}

// counted reports whether a step's affected rows are used (a claim, a
// publish, a counting step) and its statement returns Delta's metrics.
func counted(st *plan.Step) bool {
	if st.Purpose != plan.Lock && st.Purpose != plan.Insert && st.Purpose != plan.Merge && !st.Counts {
		return false
	}
	verb, _, _ := strings.Cut(strings.TrimSpace(st.SQL), " ")
	switch strings.ToUpper(verb) {
	case "MERGE", "UPDATE", "DELETE":
		return true
	}
	return false
}

// Query returns at most limit rows as text.
func (s *Session) Query(ctx context.Context, q string, limit int) ([]string, [][]string, error) {
	cols, _, rows, err := s.query(ctx, q)
	if err != nil {
		return nil, nil, err
	}
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = valueText(v)
		}
	}
	return cols, out, nil
}

func valueText(v any) string {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format("2006-01-02 15:04:05.999999")
	}
	return sqlgen.Text(v)
}

// Columns reports a query's columns.
func (s *Session) Columns(ctx context.Context, q string) ([]plan.Column, error) {
	cols, types, _, err := s.query(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]plan.Column, len(cols))
	for i, c := range cols {
		out[i] = plan.Column{Name: c, Type: types[i]}
	}
	return out, nil
}

// Relation reports a table's columns, or ok=false when it does not exist
// (nor its schema: SHOW TABLES IN a missing schema fails with
// SCHEMA_NOT_FOUND).
func (s *Session) Relation(ctx context.Context, r plan.Relation) ([]plan.Column, bool, error) {
	_, _, rows, err := s.x.query(ctx, fmt.Sprintf("SHOW TABLES%s LIKE %s", s.in(r), s.d.String(r.Name)))
	if schemaNotFound(err) {
		return nil, false, nil
	}
	if err != nil {
		s.failed = true
		return nil, false, err
	}
	if len(rows) == 0 {
		return nil, false, nil
	}
	cols, err := s.Columns(ctx, "SELECT * FROM "+s.d.Qualify(r)+" LIMIT 0")
	return cols, err == nil, err
}

// Close releases the session to its engine for reuse, unless a statement
// failed on it (the shared connection stays open).
func (s *Session) Close() error {
	if s.e != nil && !s.failed && s.x != nil {
		s.e.release(s.x)
	}
	s.x = nil
	return nil
}

// schemaNotFound: Spark's error class for a namespace that does not exist
// (SHOW TABLES IN, DESCRIBE); the SparkError's text starts with it.
func schemaNotFound(err error) bool {
	return err != nil && strings.Contains(err.Error(), "[SCHEMA_NOT_FOUND]")
}

// Relations lists the tables and views of schemas in the current catalog
// (nil: of every schema SHOW SCHEMAS lists), one SHOW TABLES per schema:
// open-source Spark has no information_schema (Unity Catalog's), and SHOW
// TABLES reads one namespace. A schema that does not exist, or was
// dropped meanwhile, has no relations.
func (s *Session) Relations(ctx context.Context, schemas []string) ([][]string, error) {
	if schemas == nil {
		_, _, nss, err := s.query(ctx, "SHOW SCHEMAS")
		if err != nil {
			return nil, err
		}
		for _, ns := range nss {
			schemas = append(schemas, sqlgen.Text(ns[0]))
		}
	}
	var out [][]string
	for _, name := range schemas {
		_, _, rows, err := s.x.query(ctx, "SHOW TABLES IN "+s.d.Quote(name))
		if schemaNotFound(err) {
			continue
		}
		if err != nil {
			s.failed = true
			return nil, err
		}
		for _, r := range rows {
			// namespace, tableName, isTemporary: a temporary view belongs
			// to the session, not to the schema.
			if len(r) >= 3 && sqlgen.Text(r[2]) == "true" {
				continue
			}
			out = append(out, []string{name, sqlgen.Text(r[1])})
		}
	}
	return out, nil
}

var _ adapters.RelationLister = (*Session)(nil)

// RelationKind is "view" when SHOW VIEWS lists r, "table" when SHOW TABLES
// does (it lists views too), "" otherwise: open-source Spark has no
// information_schema to read table_type from.
func (s *Session) RelationKind(ctx context.Context, r plan.Relation) (string, error) {
	like := " LIKE " + s.d.String(r.Name)
	for _, k := range []struct{ show, kind string }{{"SHOW VIEWS", "view"}, {"SHOW TABLES", "table"}} {
		_, _, rows, err := s.x.query(ctx, k.show+s.in(r)+like)
		if schemaNotFound(err) {
			return "", nil
		}
		if err != nil {
			s.failed = true
			return "", err
		}
		for _, row := range rows {
			// namespace, viewName/tableName, isTemporary
			if len(row) < 3 || sqlgen.Text(row[2]) != "true" {
				return k.kind, nil
			}
		}
	}
	return "", nil
}

// in is the " IN schema" of a SHOW statement about r: none for a relation
// without a schema, which lives in the session's current schema (a
// target without `schema`; `IN ``` fails).
func (s *Session) in(r plan.Relation) string {
	if r.Schema == "" {
		return ""
	}
	if r.Database != "" {
		return " IN " + s.d.Quote(r.Database) + "." + s.d.Quote(r.Schema)
	}
	return " IN " + s.d.Quote(r.Schema)
}
