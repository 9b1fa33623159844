package plan

// ColumnLineage is where one output column of a model comes from, as the
// SQL analysis (compiler/analyze) reads it: the columns of the relations in
// its FROM clauses whose values flow into it, through CTEs and derived
// tables, one hop (a ref's own lineage is on that model's node).
type ColumnLineage struct {
	Column  string         `json:"column"`
	Sources []ColumnSource `json:"sources,omitempty"` // sorted, distinct; empty for a constant or count(*)
	// Unknown says why some input could not be read ("" when every input
	// is known): such a column is shown as unknown, never guessed.
	Unknown string `json:"unknown,omitempty"`
}

// ColumnSource is one input column of an output column.
type ColumnSource struct {
	// Table is the relation as the analysis rendering names it: a ref's
	// model name, or schema.table for a source. "" when Candidates holds
	// the tables an unqualified column of a join may come from.
	Table      string   `json:"table,omitempty"`
	Column     string   `json:"column"`
	Candidates []string `json:"candidates,omitempty"`
}
