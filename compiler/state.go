package compiler

import "github.com/idemc/idemc/plan"

// State is what the planner needs to know about the warehouse. The runner
// backs it with the audit table (one bulk read per run, not per unit);
// `idemc compile` uses NoState.
type State interface {
	// Exists reports whether a relation exists (for is_incremental() and
	// for "up to date", which needs the destination).
	Exists(r plan.Relation) bool
	// IsView reports whether an existing relation is a view: is_incremental()
	// is false on one, as in dbt (the build replaces it by a table before
	// the model's SQL runs, so that SQL must not read {{ this }}).
	IsView(r plan.Relation) bool
	// Latest returns a unit's latest attempt, whatever its status.
	Latest(model, partition string) (Attempt, bool)
	// Keys lists the partition keys a model has audit rows for.
	Keys(model string) []string
	// Empty reports whether a table is known to hold no rows (emptied
	// outside idemc, when its audit rows say rows were written).
	Empty(r plan.Relation) bool
	// HighWater returns a watermark model's stored mark.
	HighWater(model string) (string, bool)
}

// Attempt is what the planner reads of a unit's latest audit row.
type Attempt struct {
	RunID       string
	Status      string // running, succeeded, failed, abandoned
	Inputs      string // the input fingerprint it ran with
	DataVersion string // the data version its write left
	RowCount    int64  // rows it wrote; -1 when unknown
	CodeHash    string // the model's code hash it ran with (state:modified)
}

// NoState is the state of a plan printed without a connection: every
// destination is assumed to exist and nothing to have run yet.
type NoState struct{}

// Exists is always true, so compile shows the steady-state (incremental) SQL.
func (NoState) Exists(plan.Relation) bool { return true }

// IsView is never known.
func (NoState) IsView(plan.Relation) bool { return false }

// Latest is never known.
func (NoState) Latest(string, string) (Attempt, bool) { return Attempt{}, false }

// Keys is always empty.
func (NoState) Keys(string) []string { return nil }

// Empty is never known.
func (NoState) Empty(plan.Relation) bool { return false }

// HighWater is never known.
func (NoState) HighWater(string) (string, bool) { return "", false }
