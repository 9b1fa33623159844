package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
)

// relationKind is "view" or "table" for an existing relation, "" when it
// does not exist (one catalog query, only for relations the run found).
func (r *run) relationKind(ctx context.Context, s adapters.Session, rel adapters.Relation) (string, error) {
	if r.db == nil || !r.db.Exists(rel) {
		return "", nil
	}
	schema := rel.Schema
	if schema == "" {
		schema = r.db.defaultSchema
	}
	q := fmt.Sprintf("SELECT table_type FROM information_schema.tables WHERE lower(table_schema) = %s AND lower(table_name) = %s",
		r.d.String(strings.ToLower(schema)), r.d.String(strings.ToLower(rel.Name)))
	_, rows, err := s.Query(ctx, q, 1)
	if err != nil || len(rows) == 0 {
		return "", err
	}
	if strings.Contains(strings.ToUpper(rows[0][0]), "VIEW") {
		return "view", nil
	}
	return "table", nil
}

// kindChange reports the statement that drops the destination when it is
// a view and the model now writes a table, or the other way round (a
// changed materialization), or when the planner says the write replaces
// the relation (Write.Replace: a table becomes partitioned), and "" when
// the kinds agree.
func (r *run) kindChange(ctx context.Context, s adapters.Session, w *adapters.Write) (string, error) {
	have, err := r.relationKind(ctx, s, w.Target)
	if err != nil || have == "" {
		return "", err
	}
	want := "table"
	if w.Materialized == adapters.View {
		want = "view"
	}
	switch {
	case have == want && !w.Replace:
		return "", nil
	case have == "view":
		return "DROP VIEW IF EXISTS " + r.d.Qualify(w.Target), nil
	default:
		return r.d.DropTable(w.Target), nil
	}
}

// replaceKind puts the new relation in the old one's place inside the
// unit's transaction (transactional DDL): drop the old relation, run the
// recipe's prepare steps (which create the new table) or create the view,
// then recreate the views that read it (ViewBinder dialects, whose DROP …
// CASCADE dropped them). A failure rolls it all back.
func (r *run) replaceKind(ctx context.Context, s adapters.Session, ddl *schemaDDL, w *adapters.Write, drop string, prepare []adapters.Step) error {
	views, err := r.dependentViews(ctx, s, w.Target)
	if err != nil {
		return err
	}
	if r.views != nil && !strings.HasSuffix(drop, " CASCADE") {
		drop += " CASCADE"
	}
	_ = ddl.exec(ctx, drop, "the materialization changed: replace the relation")
	for _, st := range prepare {
		_ = ddl.exec(ctx, st.SQL, st.Comment)
	}
	if w.Materialized == adapters.View {
		_ = ddl.exec(ctx, fmt.Sprintf("CREATE VIEW %s AS\n%s", r.d.Qualify(w.Target), w.Select), "the view, in the old relation's place")
	}
	for _, v := range views {
		_ = ddl.exec(ctx, r.views.CreateView(v), "recreate the view "+v.Relation.Name+", dropped with the old relation")
	}
	return nil
}
