package dialect

import (
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// SwapKind puts a view in a table's place or a table in a view's. BigQuery
// refuses CREATE OR REPLACE of either kind over the other ("… is not
// allowed for this operation because it is currently a TABLE", or a VIEW:
// SQLMesh/sqlmesh#3196, mozilla/bigquery-etl#1836), and renames tables
// only (ALTER TABLE … RENAME TO; a view is renamed only by copying it in
// the console: cloud.google.com/bigquery/docs/managing-views). So:
//
//   - table → view: the table is renamed to old and the view is created
//     in its place from the model (the checked view aside is dropped
//     after); a unit failing between the two renames the table back.
//   - view → table: the checked table is renamed to old first, then the
//     view is dropped and old renamed to the destination. The view cannot
//     be kept, but from the first statement on the relation at old is the
//     new table, checked: a run that dies after the drop is finished by
//     the next (the runner renames old to the destination), one that dies
//     before it finds the view in place and drops old.
func (d Dialect) SwapKind(w *plan.Write, aside, old plan.Relation, fromView bool) []string {
	dest := w.Target
	if w.Materialized == plan.View {
		return []string{d.RenameRelation(dest, old, false), fmt.Sprintf("CREATE VIEW %s AS\n%s", d.Qualify(dest), w.Select)}
	}
	return []string{d.RenameRelation(aside, old, false), "DROP VIEW IF EXISTS " + d.Qualify(dest), d.RenameRelation(old, dest, false)}
}

// RenameRelation is ALTER TABLE IF EXISTS … RENAME TO, the new name
// unqualified (a table stays in its dataset). It renames tables only,
// whatever view says: SwapKind never leaves a view at a name it renames.
func (d Dialect) RenameRelation(from, to plan.Relation, view bool) string {
	return fmt.Sprintf("ALTER TABLE IF EXISTS %s RENAME TO %s", d.Qualify(from), d.Quote(to.Name))
}

var _ adapters.KindSwapper = Dialect{}
