package adapters

// AsideBuilder is implemented by dialects whose DDL commits on its own
// (MySQL/MariaDB, Snowflake, BigQuery, Spark): a unit that changes its
// destination's columns writes to a copy of the destination with the new
// columns, checks it there, and swaps it in only then, so a failed unit or
// a crash leaves the destination as it was (DESIGN §1). Without it such an
// engine alters the destination before the write.
type AsideBuilder interface {
	// CopyTable creates aside as a copy of dest: its definition (indexes
	// included) and, with rows, its rows.
	CopyTable(aside, dest Relation, rows bool) []string
	// SwapTable puts aside in dest's place atomically; the previous table
	// goes to old (MySQL's RENAME) or to aside (Snowflake's SWAP WITH),
	// both dropped after, or is replaced (BigQuery's CREATE OR REPLACE …
	// CLONE, Spark's CREATE OR REPLACE … AS: aside is dropped after).
	SwapTable(dest, aside, old Relation) string
}

// KindSwapper is implemented by AsideBuilder dialects that can put a
// relation of another kind (a view for a table, a table for a view) in
// the destination's place: a changed materialization is built aside and
// swapped in by these statements. MySQL's RENAME TABLE takes views in one
// atomic statement; Snowflake's SWAP WITH takes tables only, so it renames
// the destination to old, then aside to the destination, and so does
// Spark (not atomic: the runner repairs a relation left at old by a run
// that died in between). BigQuery renames tables only (see its dialect).
type KindSwapper interface {
	// SwapKind puts aside (a view when w is one) in the place of w's
	// destination (a view when fromView); the previous relation is left
	// at old, or dropped. Whatever a sequence leaves between two of its
	// statements, the relation at old belongs at the destination when
	// there is none there (the runner's repair renames it back).
	SwapKind(w *Write, aside, old Relation, fromView bool) []string
	// RenameRelation renames a table, or a view.
	RenameRelation(from, to Relation, view bool) string
}
