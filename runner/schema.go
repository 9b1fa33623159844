package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

const (
	tableRecreated   = "column types changed: the table was recreated with the model's columns"
	columnsRecreated = "columns changed: the table was recreated with the model's columns"
)

// schemaDiff is how a batch's columns differ from its destination's.
type schemaDiff struct {
	added   []plan.Column
	removed []string
	retyped []plan.ColumnChange
}

func (d schemaDiff) empty() bool {
	return len(d.added) == 0 && len(d.removed) == 0 && len(d.retyped) == 0
}

// diffColumns compares columns by name (case-insensitively) and, for the
// columns both have, by type as the dialect sees them (SameType).
func diffColumns(dl adapters.Dialect, dest, batch []plan.Column) schemaDiff {
	var d schemaDiff
	have := map[string]plan.Column{}
	for _, c := range dest {
		have[strings.ToLower(c.Name)] = c
	}
	want := map[string]bool{}
	for _, c := range batch {
		want[strings.ToLower(c.Name)] = true
		old, ok := have[strings.ToLower(c.Name)]
		switch {
		case !ok:
			d.added = append(d.added, c)
		case !dl.SameType(old.Type, c.Type):
			d.retyped = append(d.retyped, plan.ColumnChange{Name: old.Name, From: old.Type, To: c.Type})
		}
	}
	for _, c := range dest {
		if !want[strings.ToLower(c.Name)] {
			d.removed = append(d.removed, c.Name)
		}
	}
	return d
}

// syncSchema compares the batch's columns with the destination's and
// applies on_schema_change: it fails before anything is written, or adds,
// drops and retypes the destination's columns (DDL the dialect writes, in
// the write's transaction where DDL is transactional, else before it:
// schemaDDL), or marks the write to recreate the
// relation. It returns the batch's columns and a note for the unit's line.
func (r *run) syncSchema(ctx context.Context, s adapters.Session, ddl *schemaDDL, w *plan.Write) ([]string, string, error) {
	batch, err := s.Columns(ctx, r.d.DescribeQuery(w.Select))
	if err != nil {
		return nil, "", err
	}
	names := make([]string, len(batch))
	for i, c := range batch {
		names[i] = c.Name
	}
	ddl.batch = batch
	dest, ok, err := s.Relation(ctx, w.Target)
	if err != nil || !ok {
		return names, "", err
	}
	diff := diffColumns(r.d, dest, batch)
	w.TargetColumns = columnNames(dest)
	if diff.empty() {
		return names, "", nil
	}
	mode := r.pl.Nodes[w.Model].OnSchemaChange
	if mode == "" {
		mode = "fail"
	}
	if w.FullRefresh || w.Materialized == plan.Table {
		// A rebuild takes the model's columns whatever the setting.
		mode = "sync_all_columns"
		// Where DDL does not roll back (Spark), any change is made so: the
		// one commit that replaces the rows replaces the definition.
		replace := len(diff.retyped) > 0 || !r.ad.Capabilities.TransactionalDDL
		if replace && w.Window == nil && r.ad.Capabilities.ReplaceDefinition {
			// The unit owns the whole relation: its write replaces the
			// definition with the rows, so a value the new type cannot
			// hold does not matter and a failed check keeps the old table.
			w.Recreate, w.TargetColumns = true, nil
			if w.Views, err = r.dependentViews(ctx, s, w.Target); err != nil {
				return nil, "", err
			}
			note := tableRecreated
			if len(diff.retyped) == 0 {
				note = columnsRecreated
			}
			return names, r.recreatedNote(note, w.Views, nil), nil
		}
	}
	if err := schemaRefusal(w.Model, mode, diff); err != nil {
		return nil, "", err
	}
	if err := r.alterColumns(ctx, ddl, w, mode, dest, diff); err != nil {
		// (On a copy, values that do not cast already made the copy start
		// empty: what failed here is not the data, and the destination
		// must not be dropped before the swap.)
		if len(diff.retyped) == 0 || !r.rebuildsAll(w) || ddl.aside {
			return nil, "", err
		}
		// A full refresh rewrites every partition from the model's start:
		// when the types cannot change in place (old values that do not
		// cast, a view), the table is recreated empty before any of its
		// units writes (they all wait on this DDL phase).
		note, err := r.recreateEmpty(ctx, ddl, w)
		if err != nil {
			return nil, "", err
		}
		w.TargetColumns = nil // recreated from the batch
		return names, note, nil
	}
	w.TargetColumns = alteredColumns(mode, dest, diff)
	return names, "", nil
}

func columnNames(cols []plan.Column) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// alteredColumns is the destination's column order after alterColumns:
// ADD COLUMN appends, sync_all_columns drops the removed ones.
func alteredColumns(mode string, dest []plan.Column, diff schemaDiff) []string {
	gone := map[string]bool{}
	if mode == "sync_all_columns" {
		for _, c := range diff.removed {
			gone[strings.ToLower(c)] = true
		}
	}
	var out []string
	for _, c := range dest {
		if !gone[strings.ToLower(c.Name)] {
			out = append(out, c.Name)
		}
	}
	if mode == "append_new_columns" || mode == "sync_all_columns" {
		for _, c := range diff.added {
			out = append(out, c.Name)
		}
	}
	return out
}

// alterColumns adds (append_new_columns, sync_all_columns), drops and
// retypes (sync_all_columns) the destination's columns.
func (r *run) alterColumns(ctx context.Context, ddl *schemaDDL, w *plan.Write, mode string, dest []plan.Column, diff schemaDiff) error {
	if mode == "sync_all_columns" && len(diff.retyped) > 0 {
		// Retype first: it is the step that can fail on the data, and
		// failing it must leave the table as it was.
		if err := r.retype(ctx, ddl, w, dest, diff.retyped); err != nil {
			return err
		}
	}
	for _, c := range diff.added {
		if err := ddl.exec(ctx, r.d.AddColumn(ddl.target(w.Target), c), "the model's new column "+c.Name); err != nil {
			return err
		}
	}
	if mode != "sync_all_columns" {
		return nil // append_new_columns: removed columns stay and get NULL
	}
	for _, c := range diff.removed {
		if err := ddl.exec(ctx, r.d.DropColumn(ddl.target(w.Target), c), "sync_all_columns: the model no longer has column "+c); err != nil {
			return err
		}
	}
	return nil
}

// rebuildsAll reports whether this run rewrites every row the unit's
// relation may keep: a table, a full refresh of an unpartitioned model, or
// of a partitioned one over its whole range (no --partition, --start or
// --end).
func (r *run) rebuildsAll(w *plan.Write) bool {
	c := r.o.Compile
	rebuild := w.FullRefresh || w.Materialized == plan.Table
	return rebuild && (w.Window == nil || c.Partition == "" && c.Start == "" && c.End == "")
}

// recreateEmpty drops the destination, has the unit's prepare steps run
// again after the drop (plan.SchemaChange.Reprepare), which create it, empty,
// with the batch's columns, then recreates the views that read it
// (ViewBinder dialects), reporting those that no longer compile in the
// note.
func (r *run) recreateEmpty(ctx context.Context, ddl *schemaDDL, w *plan.Write) (string, error) {
	views, err := r.dependentViews(ctx, ddl.sess, w.Target)
	if err != nil {
		return "", err
	}
	if err := ddl.exec(ctx, r.d.DropTable(w.Target), "full refresh, column types changed: recreate the table"); err != nil {
		return "", fmt.Errorf("model %s: full refresh: dropping the table to recreate it with the model's column types: %w", w.Model, err)
	}
	ddl.reprepare = len(ddl.steps)
	var lost []string
	for _, v := range views {
		// In the unit's transaction a view that no longer compiles fails
		// the unit, which keeps the old table and its views.
		if err := ddl.exec(ctx, r.views.CreateView(v), "recreate the view "+v.Relation.Name); err != nil {
			lost = append(lost, fmt.Sprintf("%s.%s (%v)", v.Relation.Schema, v.Relation.Name, firstLine(err.Error())))
		}
	}
	return r.recreatedNote(tableRecreated, views, lost), nil
}

// syncView marks a view model for recreation when its columns changed in a
// way CREATE OR REPLACE VIEW cannot take (ViewBinder dialects): the view's
// columns must stay, in order, with their types; new ones may follow.
func (r *run) syncView(ctx context.Context, s adapters.Session, w *plan.Write) (string, error) {
	dest, ok, err := s.Relation(ctx, w.Target)
	if err != nil || !ok {
		return "", err
	}
	batch, err := s.Columns(ctx, r.d.DescribeQuery(w.Select))
	if err != nil {
		return "", err
	}
	same := len(batch) >= len(dest)
	for i := 0; same && i < len(dest); i++ {
		same = strings.EqualFold(dest[i].Name, batch[i].Name) && r.d.SameType(dest[i].Type, batch[i].Type)
	}
	if same {
		return "", nil
	}
	w.Recreate = true
	if w.Views, err = r.dependentViews(ctx, s, w.Target); err != nil {
		return "", err
	}
	return r.recreatedNote("the view's columns changed: the view was recreated", w.Views, nil), nil
}

// dependentViews reads the definitions of the views that read rel, on
// dialects whose views bind to columns.
func (r *run) dependentViews(ctx context.Context, s adapters.Session, rel plan.Relation) ([]plan.ViewDef, error) {
	if r.views == nil {
		return nil, nil
	}
	_, rows, err := s.Query(ctx, r.views.DependentViewsQuery(rel), 0)
	if err != nil {
		return nil, fmt.Errorf("reading the views that depend on %s: %w", r.d.Qualify(rel), err)
	}
	out := make([]plan.ViewDef, len(rows))
	for i, row := range rows {
		out[i] = plan.ViewDef{Relation: plan.Relation{Database: rel.Database, Schema: row[0], Name: row[1]}, SQL: row[2]}
	}
	return out, nil
}

// recreatedNote is the unit's note after a recreate: what, the views that
// read it and were recreated, and those that could not be.
func (r *run) recreatedNote(n string, views []plan.ViewDef, lost []string) string {
	if len(views) > 0 {
		names := make([]string, len(views))
		for i, v := range views {
			names[i] = v.Relation.Schema + "." + v.Relation.Name
		}
		n += "; the views that read it were recreated (" + strings.Join(names, ", ") + ")"
	}
	if len(lost) > 0 {
		n += "; these could not be and were dropped: " + strings.Join(lost, "; ")
	}
	return n
}

// schemaRefusal is the error of a mode that does not allow the change: the
// default "fail" refuses every change, append_new_columns refuses a type
// change. It names the model, the columns, both types and the remedies.
func schemaRefusal(model, mode string, d schemaDiff) error {
	if mode == "sync_all_columns" || mode == "append_new_columns" && len(d.retyped) == 0 {
		return nil
	}
	var parts []string
	if len(d.added) > 0 && mode != "append_new_columns" {
		an := make([]string, len(d.added))
		for i, c := range d.added {
			an[i] = c.Name
		}
		parts = append(parts, "new columns "+strings.Join(an, ", "))
	}
	if len(d.removed) > 0 && mode != "append_new_columns" {
		parts = append(parts, "missing columns "+strings.Join(d.removed, ", "))
	}
	for _, c := range d.retyped {
		parts = append(parts, fmt.Sprintf("column %s changed type from %s in the destination to %s in the model", c.Name, c.From, c.To))
	}
	remedy := `set on_schema_change = "append_new_columns" or "sync_all_columns", or rebuild with --full-refresh`
	if len(d.retyped) > 0 {
		// Adding columns does not change a type.
		remedy = `set on_schema_change = "sync_all_columns" or rebuild with --full-refresh`
	}
	return fmt.Errorf("model %s: the model's columns changed (%s) and on_schema_change is %q: %s", model, strings.Join(parts, "; "), mode, remedy)
}

// retype changes the destination's column types in place, keeping its rows
// (the data of other partitions). The dialect's statements leave the table
// unchanged when they fail; a transaction they opened is rolled back.
func (r *run) retype(ctx context.Context, ddl *schemaDDL, w *plan.Write, dest []plan.Column, changes []plan.ColumnChange) error {
	// Views bound to the table's columns block a retype: the dialect
	// recreates them around it (ViewBinder dialects).
	views, err := r.dependentViews(ctx, ddl.sess, w.Target)
	if err != nil {
		return err
	}
	rw := *w
	rw.Views = views
	if ddl.aside {
		return r.retypeAside(ctx, ddl, &rw, dest, changes)
	}
	stmts := r.d.RetypeColumns(&rw, dest, changes)
	if ddl.deferred {
		// Tried first in a transaction rolled back, so that a value that
		// cannot be cast is this error (or a full refresh's recreate)
		// and not a failed write.
		stmts = ddl.inTransaction(stmts)
		if q, err := ddl.try(ctx, stmts); err != nil {
			return retypeError(w.Model, changes, err, q)
		}
		for _, q := range stmts {
			_ = ddl.exec(ctx, q, "sync_all_columns: the model's column types")
		}
		return nil
	}
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(ctx, ddl.sess, q); err != nil {
			if rb := r.d.Rollback(); rb != "" {
				_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), ddl.sess, rb)
			}
			return retypeError(w.Model, changes, err, q)
		}
	}
	return nil
}

// retypeError is a failed retype: the columns, the cause, the remedies and
// the statement.
func retypeError(model string, changes []plan.ColumnChange, err error, q string) error {
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = fmt.Sprintf("%s from %s to %s", c.Name, c.From, c.To)
	}
	return fmt.Errorf("model %s: retyping column %s failed and the destination is unchanged: %v\n"+
		"(a value that cannot be cast, or an object that depends on the column: fix it and run again, or rebuild with --full-refresh, which recreates the table when its types cannot change in place)\n%s",
		model, strings.Join(parts, ", column "), firstLine(err.Error()), q)
}

// retypeAside tries a retype on a scratch copy of the destination (the
// unit's own copy is made later, under its lock), then collects it for the
// unit's copy. When the old values cannot take the new types and the run
// rewrites every row, the unit's copy starts empty instead.
func (r *run) retypeAside(ctx context.Context, ddl *schemaDDL, w *plan.Write, dest []plan.Column, changes []plan.ColumnChange) error {
	ab := r.d.(adapters.AsideBuilder)
	tw := *w
	tw.Target = r.asideOf(w.Target, "__idemc_try")
	defer func() { _, _ = adapters.ExecSQL(context.WithoutCancel(ctx), ddl.sess, r.d.DropTable(tw.Target)) }()
	for _, q := range ab.CopyTable(tw.Target, w.Target, true) {
		if _, err := adapters.ExecSQL(ctx, ddl.sess, q); err != nil {
			return err
		}
	}
	for _, q := range r.d.RetypeColumns(&tw, dest, changes) {
		if _, err := adapters.ExecSQL(ctx, ddl.sess, q); err != nil {
			if !r.rebuildsAll(w) {
				return retypeError(w.Model, changes, err, q)
			}
			ddl.emptyCopy = true
			break
		}
	}
	aw := *w
	aw.Target = ddl.target(w.Target)
	for _, q := range r.d.RetypeColumns(&aw, dest, changes) {
		_ = ddl.exec(ctx, q, "sync_all_columns: the model's column types")
	}
	return nil
}
