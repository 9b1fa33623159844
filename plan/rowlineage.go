package plan

import "strings"

// Row lineage columns: with lineage_columns a model's write adds them to
// every row it writes, the run that wrote the row and that run's logical
// time (--as-of), so a row joins to idemc_runs and idemc_audit by run id.
const (
	LineageRunID = "_idemc_run_id"
	LineageAsOf  = "_idemc_as_of"
)

// LineageColumns are the row lineage columns, in the order a write adds them.
func LineageColumns() []string { return []string{LineageRunID, LineageAsOf} }

// IsLineageColumn reports whether a column name is a row lineage column,
// as any engine reports it (Snowflake upper-cases unquoted names).
func IsLineageColumn(name string) bool {
	return strings.EqualFold(name, LineageRunID) || strings.EqualFold(name, LineageAsOf)
}
