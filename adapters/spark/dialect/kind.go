package dialect

import (
	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// SwapKind puts a view in a table's place or a table in a view's. Spark
// refuses CREATE OR REPLACE VIEW over a table ("Existing table is not a
// view", apache/spark#14314) and DROP TABLE of a view or DROP VIEW of a
// table (WRONG_COMMAND_FOR_OBJECT_TYPE, apache/spark#53780), so the
// destination is renamed to old, then the checked new relation to the
// destination: two metadata operations, not one (the runner restores a
// destination a dead run left at old, and drops old).
func (d Dialect) SwapKind(w *plan.Write, aside, old plan.Relation, fromView bool) []string {
	return sqlgen.RenameSwap(d.RenameRelation, w, aside, old, fromView)
}

// RenameRelation is ALTER TABLE or ALTER VIEW … RENAME TO: each takes one
// kind (ALTER TABLE of a view is refused: "use ALTER VIEW instead"), has no
// IF EXISTS, and keeps the relation in its schema. A managed table in a
// Hive metastore moves its files when renamed (Unity Catalog renames in
// the catalog only).
func (d Dialect) RenameRelation(from, to plan.Relation, view bool) string {
	return d.AlterRename(from, to, view, "")
}

var _ adapters.KindSwapper = Dialect{}
