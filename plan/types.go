// Package plan is the data that passes from the compiler to the runner and
// the engines: relations, windows, the engine-neutral write of one unit, its
// checks, its ordered steps, its audit row, and the plan of an invocation.
// It holds no behaviour beyond formatting, and imports no engine, so that a
// printed plan, a golden file and what runs are the same values.
package plan

import (
	"strings"
	"time"
)

// Relation is a fully named table or view.
type Relation struct {
	Database string
	Schema   string
	Name     string
}

// Window is a unit's half-open partition window [Start, End).
type Window struct {
	Start, End  time.Time
	Granularity string // hour, day, month, year
	Key         string // canonical partition key: 2026-07-30, 2026-07-30T13, 2026-07, 2026
}

// State names the audit, watermark and run tables of a target.
type State struct {
	Audit Relation // idemc_audit
	Marks Relation // idemc_state
	Runs  Relation // idemc_runs
	// Latest is idemc_latest, one row per unit and destination: its
	// latest attempt (DESIGN §9). Zero when the state is read from the
	// audit table (an engine without it, a table not created yet).
	Latest Relation
}

// StateIn returns the state tables of a schema ("" for the engine's
// default schema, where unqualified relations live).
func StateIn(schema string) State {
	return State{
		Audit:  Relation{Schema: schema, Name: "idemc_audit"},
		Marks:  Relation{Schema: schema, Name: "idemc_state"},
		Runs:   Relation{Schema: schema, Name: "idemc_runs"},
		Latest: Relation{Schema: schema, Name: "idemc_latest"},
	}
}

// AuditColumnsAdded are the idemc_audit columns newer than the first
// release, which AuditMigrations adds to an older table.
func AuditColumnsAdded() []string { return []string{"inputs", "data_version"} }

// RunRow is one invocation in idemc_runs (DESIGN §9).
type RunRow struct {
	RunID     string
	Command   string // build, run, seed, retry, verify
	Options   string // JSON of the planning options, so that retry can replan the run
	Target    string
	AsOf      time.Time
	GitCommit string
	Started   time.Time
	Ended     time.Time
	Outcome   string // running, succeeded, failed, interrupted
	RetryOf   string // the run a retry finishes (the first of its chain)
	Succeeded int
	Failed    int
	Skipped   int
}

// Column is one column of a relation or a query result.
type Column struct {
	Name string
	Type string // the engine's type name; "" when unknown
}

// ViewDef is a view's definition, read from the catalog to recreate it.
type ViewDef struct {
	Relation Relation
	SQL      string // the SELECT
}

// ColumnChange is a destination column whose type is not the batch's.
type ColumnChange struct {
	Name string
	From string // the destination's type
	To   string // the batch's type
}

// AuditRow is one unit's audit record (DESIGN §9).
type AuditRow struct {
	RunID     string
	Job       string
	Partition string
	Status    string // running, succeeded, failed, abandoned
	Started   time.Time
	Ended     time.Time
	Attempt   int64 // 0: count the unit's earlier rows in SQL
	CodeHash  string
	GitCommit string
	Target    string
	AsOf      time.Time
	Error     string
	Checks    string // JSON
	// Inputs is the unit's input fingerprint: code hash, destination and
	// the data version of everything it reads (DESIGN §9).
	Inputs string
	// DataVersion names the data the unit's write left; readers record it
	// in their Inputs. A write's own run id, except for verify's reruns,
	// which leave the data as it was.
	DataVersion string
	// Dest is the relation the unit writes (idemc_latest's destination;
	// zero: the write's target).
	Dest Relation
}

// Purpose says what a step is for; the runner and the printed plan use it.
type Purpose string

// Step purposes, in the order a unit usually runs them.
const (
	Prepare     Purpose = "prepare"      // idempotent DDL before the transaction
	LatestStart Purpose = "latest_start" // the unit's idemc_latest row says running, before its audit row
	AuditStart  Purpose = "audit_start"  // the running row, committed on its own
	Begin       Purpose = "begin"        // start the write's transaction
	Lock        Purpose = "lock"         // a lock held until commit
	SchemaStep  Purpose = "schema"       // a column or relation change, inside the transaction where DDL is transactional
	Stage       Purpose = "stage"        // materialize the batch
	Validate    Purpose = "validate"     // refuse a bad batch before writing
	Delete      Purpose = "delete"       // remove the region being replaced
	Insert      Purpose = "insert"       // write the batch
	Merge       Purpose = "merge"        // upsert the batch
	CheckStep   Purpose = "check"        // declared checks on the written region
	Publish     Purpose = "publish"      // make a verified build visible
	StateStep   Purpose = "state"        // watermark update
	AuditFinish Purpose = "audit_finish" // succeeded, in the same transaction
	LatestEnd   Purpose = "latest_end"   // the unit's idemc_latest row, in the same transaction
	Commit      Purpose = "commit"
	Rollback    Purpose = "rollback" // the runner's, on a failed unit: never in a recipe
	Cleanup     Purpose = "cleanup"  // after commit; failures are ignored
)

// Step is one statement of a unit, with what its SQL cannot say: what it is
// for, the check whose failures it returns, the lock it takes, the job an
// engine must submit it as and whether it is buffered into a script. An
// engine's Session executes it (adapters.Session.Exec) without parsing SQL.
type Step struct {
	Purpose Purpose
	SQL     string
	Comment string
	// Check, on a check or validate step, is the check whose failing rows
	// the query returns (no row: it passes).
	Check *Check
	// Count, on an audit_finish step, is the scalar query of the rows the
	// unit wrote; the runner evaluates it inside the transaction.
	Count string
	// Lock, on a lock step, says what the statement locks: the engine's
	// Session takes it and returns an error wrapping adapters.ErrLocked
	// when it was not taken (the wait timed out, a try-lock said no).
	Lock *LockSpec
	// Job, for engines that submit statements as jobs (BigQuery), says
	// which job the statement is; nil elsewhere.
	Job *JobSpec
	// Deferred: the engine buffers the statement into a script that runs
	// at the script's end (BigQuery's transaction), so a check's failures
	// are known only then: the runner records it as deferred until the
	// script commits (pass) or fails on its assertion (fail).
	Deferred bool
	// Counts: the statement answers with the number of rows it wrote, as
	// a one-row, one-column result (DuckDB's CREATE TABLE … AS answers
	// "Count", and reports no rows affected). The engine's Session reads
	// that answer as the step's rows affected, and the runner counts it as
	// an insert's, so the audit_finish's count query is not sent.
	Counts bool
	// Slots name the run-time values the step's SQL holds as tokens
	// (Token): known only once the unit's write ran (the rows it wrote,
	// when it ended, its checks' results), they are all the runner fills
	// in; everything else runs as the recipe says (DESIGN §7).
	Slots []string
	// NotSent, set by the runner on a unit's steps as they ran, says why
	// the step was not sent: an idempotent prepare step an earlier unit of
	// the run sent for the same destination. The unit's file shows the
	// statement commented out, under the reason.
	NotSent string
}

// LockSpec is the lock a lock step takes.
type LockSpec struct {
	Key     string        // what is locked, for messages
	Timeout time.Duration // how long the statement waits for it (0: until the transaction gets it)
	// Release releases a session lock that outlives COMMIT and ROLLBACK
	// (MySQL's GET_LOCK, which counts re-entries): the runner runs it once
	// for every time it took the lock, on every exit (the recipe's cleanup
	// step with the same SQL is that release on success). "" for a lock
	// the transaction's end releases.
	Release string
	// Claim, when set, makes the lock a row of the lock table
	// (idemc_locks) on an engine with no session lock to hold (Snowflake,
	// BigQuery, Spark): the step's SQL inserts the key's row if it has
	// none, and the runner, not the engine, reads who holds it, waits
	// while a live run does (up to Timeout) and takes over a dead run's.
	// Release deletes the row.
	Claim *ClaimSpec
}

// ClaimSpec is the rest of a claimed lock (LockSpec.Claim): what the
// runner sends besides the step's own claim.
type ClaimSpec struct {
	RunID string // the run the step claims the key for
	// Holder is a query of the run holding the key: one row, its run id,
	// or none (released meanwhile).
	Holder string
	// Takeover deletes the row of a dead holder, whose run id is the slot
	// SlotHolder (rendered as a string literal), so that the claim can be
	// made again; it deletes nothing if another run took it over first.
	Takeover string
	// Counts: the claim statement's affected rows are the rows it
	// inserted, so 1 means this run holds the key without reading the
	// holder (an engine that counts a no-op update of a held key, or
	// whose MERGEs of one key do not conflict, reads it).
	Counts bool
}

// Run-time values of a step (Step.Slots).
const (
	SlotRows    = "rows"     // the rows the unit wrote
	SlotEndedAt = "ended_at" // when the unit ended, a timestamp literal
	SlotChecks  = "checks"   // the checks' results, a JSON string literal or NULL
	SlotHolder  = "holder"   // a claim's dead holder, a string literal (ClaimSpec.Takeover)
)

// Token is how a slot appears in a step's SQL, and in a printed plan.
func Token(slot string) string { return "<" + slot + ">" }

// Fill returns the step's SQL with each of its slots replaced by its
// value, SQL text the caller rendered for the engine. A slot without a
// value stays a token, which no engine accepts: a bug, not a silent NULL.
func (s *Step) Fill(values map[string]string) string {
	q := s.SQL
	for _, slot := range s.Slots {
		if v, ok := values[slot]; ok {
			q = strings.ReplaceAll(q, Token(slot), v)
		}
	}
	return q
}

// JobSpec describes the job a statement is submitted as.
type JobSpec struct {
	// Kind names the job in its deterministic id (one per unit, attempt
	// and kind), so that a retried submission finds the job it made.
	Kind string
	// Destination and Disposition, when set, make the query job write its
	// result into a table (WRITE_TRUNCATE, WRITE_APPEND) instead of running
	// DML: a partition's replacement in one job.
	Destination *Relation
	Disposition string
	// Labels are the job's labels (run id, model), for cost attribution.
	Labels map[string]string
}

// Result is what executing a step returned.
type Result struct {
	Affected int64 // rows the statement affected; -1 unknown
	// Columns and Rows, for a check step, are its failing rows (at most
	// the sample limit), as text with NULL as "NULL".
	Columns []string
	Rows    [][]string
}

// Materialization kinds.
const (
	View        = "view"
	Table       = "table"
	Incremental = "incremental"
	Ephemeral   = "ephemeral"
)

// Write is the engine-neutral description of one unit's write, from which a
// Dialect builds its recipe.
type Write struct {
	Model        string
	Materialized string // view, table, incremental
	Strategy     string // delete_insert, merge, insert_overwrite, append ("" for view/table)
	Target       Relation
	Select       string // the model's SELECT rendered for the target
	PartitionBy  string
	Window       *Window // nil when unpartitioned
	UniqueKey    []string
	// Columns of the batch when known (from analysis at compile time, from
	// the engine at run time); nil means "every column of the batch".
	Columns []string
	// TargetColumns are the destination's columns in the table's order,
	// after the unit's column changes, when the runner read them (nil for
	// a destination the unit creates from the batch). A dialect whose
	// insert matches columns by position and takes no column list (Spark's
	// INSERT INTO … REPLACE WHERE) selects in this order.
	TargetColumns  []string
	UpdateColumns  []string // merge_update_columns
	ExcludeColumns []string // merge_exclude_columns
	Watermark      *WatermarkWrite
	Checks         []*Check
	FullRefresh    bool
	// Recreate: the unit rebuilds the whole relation (a table, or an
	// unpartitioned full refresh) and the destination's column types cannot
	// take the batch, so the write replaces the relation's definition with
	// its rows, atomically (Capabilities.ReplaceDefinition), instead of
	// replacing only its rows. Set by the runner after comparing columns.
	Recreate bool
	// Views, with Recreate, are the views that read the relation, recreated
	// after it (ViewBinder dialects).
	Views []ViewDef
	// Replace: the relation holds the model's unpartitioned write (it was a
	// table or an unpartitioned incremental model and is partitioned now),
	// so this unit, the model's first in the plan, replaces it like a
	// changed materialization: replacing windows would keep the old rows
	// outside every window. Set by the planner.
	Replace bool
	// Schema, set by the runner's resolve phase, is how the unit changes
	// its destination's definition before it writes; nil for no change.
	Schema *SchemaChange

	State State
	Audit *AuditRow // the unit's audit row as far as it is known
}

// SchemaChange is a unit's change of its destination's definition
// (on_schema_change, a full refresh recreating its table, a changed
// materialization), as the runner decided it from the catalog: what
// sqlgen.Recipe composes into the unit's recipe.
type SchemaChange struct {
	// Alters are the schema statements, in order: for the destination,
	// run inside the unit's transaction right after BEGIN and its lock
	// (transactional DDL); with Aside, for the copy.
	Alters []Step
	// Reprepare: the recipe's prepare steps run again among the alters,
	// before Alters[ReprepareAt] (after the DROP of a recreated table,
	// they create it with the batch's columns).
	Reprepare   bool
	ReprepareAt int
	// MovePrepare: the prepare steps run only there, not before the
	// transaction (the destination is replaced inside it: a changed
	// materialization where DDL is transactional).
	MovePrepare bool
	// Aside: the change goes to a copy of the destination, where the unit
	// writes and checks, swapped in after the checks (AsideBuilder
	// dialects); CopyRows: the copy starts with the destination's rows.
	Aside, CopyRows bool
	// Kind, when set, replaces the destination by a relation of the other
	// kind, built aside and swapped in (KindSwapper dialects).
	Kind *KindSwap
}

// KindSwap is a changed materialization built aside and swapped in.
type KindSwap struct {
	FromView bool // the destination is a view now
}

// WatermarkWrite is the state a watermark model keeps.
type WatermarkWrite struct {
	Column string
}

// Check kinds (DESIGN §8) and the implicit ones the planner adds.
const (
	CheckUnique          = "unique"
	CheckNotNull         = "not_null"
	CheckAcceptedValues  = "accepted_values"
	CheckRelationships   = "relationships"
	CheckRowCountMatches = "row_count_matches"
	CheckMinRows         = "min_rows"
	CheckExpect          = "expect"
	CheckBatchKeys       = "batch_unique_key"   // a merge batch must not repeat a key
	CheckPartitionNull   = "partition_not_null" // no NULL partition values
	// Drift rules (DESIGN §14): the written region's row count against the
	// model's audit history, and an empty write.
	CheckDriftRowCount = "drift_row_count"
	CheckDriftZeroRows = "drift_zero_rows"
)

// DriftPrefix begins the name of every drift check: the audit row's checks
// JSON, status --drift and the drift event find drift by it.
const DriftPrefix = "drift."

// Check is one declared (or implicit) check of a model.
type Check struct {
	Name     string // e.g. unique(event_key); shown in errors and the audit row
	Kind     string
	Severity string // error or warn
	Columns  []string
	Values   []string // accepted_values
	// relationships: Column must exist in To.ToColumn
	To       Relation
	ToColumn string
	// row_count_matches: the written region has as many rows as Source has
	// for the same window of SourceColumn.
	Source       Relation
	SourceColumn string
	MinRows      int64
	Expr         string // expect
	// drift_row_count: the region's row count must lie within
	// [MinRatio, MaxRatio] times the median row_count of the model's last
	// Window succeeded partitions before this one (the last Window
	// succeeded runs when unpartitioned), once MinHistory of them exist.
	Window             int
	MinRatio, MaxRatio float64
}

// DriftMinHistory is how many earlier succeeded partitions (or runs) the
// row-count rule needs before it judges: a median of one or two is noise.
const DriftMinHistory = 3
