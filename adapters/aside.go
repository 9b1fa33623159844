package adapters

// AsideBuilder is implemented by dialects whose DDL commits on its own
// (MySQL/MariaDB): a unit that changes its destination's columns writes to
// a copy of the destination with the new columns, checks it there, and
// swaps it in only then, so a failed unit or a crash leaves the destination
// as it was (DESIGN §1). Without it such an engine alters the destination
// before the write.
type AsideBuilder interface {
	// CopyTable creates aside as a copy of dest: its definition (indexes
	// included) and, with rows, its rows.
	CopyTable(aside, dest Relation, rows bool) []string
	// SwapTable puts aside in dest's place atomically; the previous table
	// goes to old (MySQL's RENAME) or to aside (Snowflake's SWAP WITH),
	// both dropped after.
	SwapTable(dest, aside, old Relation) string
}
