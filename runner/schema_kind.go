package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// relationKind is "view" or "table" for an existing relation, "" when it
// does not exist (one catalog query, only for relations the run found).
func (r *run) relationKind(ctx context.Context, s adapters.Session, rel plan.Relation) (string, error) {
	if r.db == nil || !r.db.Exists(rel) {
		return "", nil
	}
	if kind, ok, err := r.kinds.first(ctx, r, s, rel); ok || err != nil {
		return kind, err
	}
	return r.catalogKind(ctx, s, rel)
}

// catalogKind is relationKind asked of the catalog whatever the run found
// when it started.
func (r *run) catalogKind(ctx context.Context, s adapters.Session, rel plan.Relation) (string, error) {
	schema := rel.Schema
	if schema == "" {
		schema = r.db.defaultSchema
	}
	if kind, ok, err := adapters.SessionKind(ctx, s, plan.Relation{Database: rel.Database, Schema: schema, Name: rel.Name}); ok {
		return kind, err
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
func (r *run) kindChange(ctx context.Context, s adapters.Session, w *plan.Write) (string, error) {
	have, err := r.relationKind(ctx, s, w.Target)
	if err != nil {
		return "", err
	}
	return r.kindChangeFrom(have, w), nil
}

// kindChangeFrom is kindChange for a destination of kind have ("view",
// "table", or "" when there is none).
func (r *run) kindChangeFrom(have string, w *plan.Write) string {
	if have == "" {
		return ""
	}
	want := "table"
	if w.Materialized == plan.View {
		want = "view"
	}
	switch {
	case have == want && !w.Replace:
		return ""
	case have == "view":
		return "DROP VIEW IF EXISTS " + r.d.Qualify(w.Target)
	default:
		return r.d.DropTable(w.Target)
	}
}

// destKind is the destination's kind on a KindSwapper dialect, after
// repairing what a dead run left of a swap of several statements (one
// statement cannot be left half done).
func (r *run) destKind(ctx context.Context, s adapters.Session, ks adapters.KindSwapper, w *plan.Write) (string, error) {
	if len(ks.SwapKind(w, w.Target, w.Target, w.Materialized != plan.View)) > 1 {
		return r.repairKindSwap(ctx, s, ks, w)
	}
	return r.relationKind(ctx, s, w.Target)
}

// repairKindSwap finishes or undoes what a run that died inside a swap of
// several statements (renames on Snowflake, Spark and BigQuery) left, and
// returns the destination's kind then. A relation at the previous
// relation's name (__idemc_old) with no destination is the previous
// relation renamed away: it is renamed back, and the unit swaps again (on
// BigQuery, a view cannot be renamed: there it is the checked new table,
// parked before the view was dropped, and the switch is finished). With
// the destination there, it is the previous relation swapped out (or the
// new table not yet in): it is dropped. Either
// way a rerun repairs a crash at any step; without a leftover this costs
// no statement (the run listed the relations when it started).
func (r *run) repairKindSwap(ctx context.Context, s adapters.Session, ks adapters.KindSwapper, w *plan.Write) (string, error) {
	// A leftover new relation is dropped as what it is: Snowflake refuses
	// DROP VIEW of a table and DROP TABLE of a view, even with IF EXISTS.
	if err := r.dropLeftover(ctx, s, r.asideOf(w.Target, "__idemc_new")); err != nil {
		return "", err
	}
	old := r.asideOf(w.Target, "__idemc_old")
	oldKind, err := r.relationKind(ctx, s, old)
	if err != nil || oldKind == "" {
		if err != nil {
			return "", err
		}
		return r.relationKind(ctx, s, w.Target)
	}
	have, err := r.catalogKind(ctx, s, w.Target)
	if err != nil {
		return "", err
	}
	if have == "" {
		if _, err := adapters.ExecSQL(ctx, s, ks.RenameRelation(old, w.Target, oldKind == "view")); err != nil {
			return "", fmt.Errorf("restoring %s, which a dead run renamed to %s: %w", r.d.Qualify(w.Target), r.d.Qualify(old), err)
		}
		return oldKind, nil
	}
	return have, r.dropLeftover(ctx, s, old)
}

// dropLeftover drops rel, a relation a dead run left, if the run found it.
func (r *run) dropLeftover(ctx context.Context, s adapters.Session, rel plan.Relation) error {
	kind, err := r.relationKind(ctx, s, rel)
	if err != nil || kind == "" {
		return err
	}
	drop := r.d.DropTable(rel)
	if kind == "view" {
		drop = "DROP VIEW IF EXISTS " + r.d.Qualify(rel)
	}
	if _, err := adapters.ExecSQL(ctx, s, drop); err != nil {
		return fmt.Errorf("dropping %s, left by a dead run: %w", r.d.Qualify(rel), err)
	}
	return nil
}

// replaceKind puts the new relation in the old one's place inside the
// unit's transaction (transactional DDL): drop the old relation, then
// (sqlgen.Recipe moves the recipe's prepare steps, which create the new
// table, right after the drop) create the view, then recreate the views
// that read it (ViewBinder dialects, whose DROP … CASCADE dropped them).
// A failure rolls it all back.
func (r *run) replaceKind(ctx context.Context, s adapters.Session, ddl *schemaDDL, w *plan.Write, drop string) error {
	views, err := r.dependentViews(ctx, s, w.Target)
	if err != nil {
		return err
	}
	if r.views != nil && !strings.HasSuffix(drop, " CASCADE") {
		drop += " CASCADE"
	}
	_ = ddl.exec(ctx, drop, "the materialization changed: replace the relation")
	if w.Materialized == plan.View {
		_ = ddl.exec(ctx, fmt.Sprintf("CREATE VIEW %s AS\n%s", r.d.Qualify(w.Target), w.Select), "the view, in the old relation's place")
	}
	for _, v := range views {
		_ = ddl.exec(ctx, r.views.CreateView(v), "recreate the view "+v.Relation.Name+", dropped with the old relation")
	}
	return nil
}
