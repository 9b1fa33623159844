package sqlgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Hooks are the parts of a recipe that differ between engines that otherwise
// follow the shared shape: prepare, audit start, BEGIN, stage, validate,
// write, check, state, audit finish, COMMIT.
type Hooks struct {
	Begin  string // "BEGIN TRANSACTION"
	Commit string // "COMMIT"
	// Lock returns a statement run right after Begin that serializes writers
	// of the same unit (Capabilities.UnitLock).
	Lock func(w *plan.Write) string
	// LockTimeout is how long Lock waits before the engine reports the
	// unit locked by another run (0: it waits until it gets the lock).
	LockTimeout time.Duration
	// CreateStage materializes the guarded batch as a relation named stage.
	CreateStage func(stage, sql string) string
	// DropStage removes the stage before commit ("" when commit drops it).
	DropStage func(stage string) string
	// Table returns the publish steps of a full rebuild, run inside the
	// transaction; CountSQL is a scalar query of the rows written.
	Table func(w *plan.Write) (steps []plan.Step, countSQL string)
	// View returns the steps that replace a view.
	View func(w *plan.Write) []plan.Step
	// Upsert returns the write steps of the merge strategy; nil is the
	// standard MERGE (Capabilities.Merge).
	Upsert func(w *plan.Write, stage string) []plan.Step
	// EmptyTable, when set, is a full refresh's statement that removes every
	// row of dest (BigQuery's TRUNCATE TABLE keeps its options); DELETE FROM
	// otherwise.
	EmptyTable func(dest string) string
	// Recreate, when set, replaces the destination's definition and rows
	// with the staged batch inside the transaction: a full refresh whose
	// column types changed (Write.Recreate; Capabilities.ReplaceDefinition).
	Recreate func(w *plan.Write, stage string) []plan.Step
	// Unlock, when set, releases the Lock after COMMIT (session locks).
	Unlock func(w *plan.Write) string
	// VerifyThenPublish builds the recipes whose shape is
	// adapters.VerifyThenPublish (MySQL's tables: built aside, checked,
	// swapped in).
	VerifyThenPublish func(w *plan.Write) []plan.Step
	// PublishThenCheck, when set, replaces the shared publish-then-check
	// view recipe (MySQL holds its lock from the replace to the audit row).
	PublishThenCheck func(w *plan.Write) []plan.Step
	// Staged are the staging table and publish of the shared
	// verify-then-publish shape (Spark, BigQuery's insert_overwrite) and of
	// the script shape's key writes (BigQuery).
	Staged *Staged
	// Prepare creates a missing destination in the verify-then-publish and
	// script shapes.
	Prepare func(w *plan.Write) plan.Step
	// BeginNote and CommitNote are the comments of the script shape's
	// BEGIN and COMMIT.
	BeginNote, CommitNote string
}

// Recipe builds a unit's steps in the shape the engine's capabilities give
// it (adapters.Capabilities.ShapeOf) from the shared pieces and the
// engine's hooks. A shape the hooks cannot build is a programming error
// of the dialect, which dialecttest catches for every engine.
func (g Gen) Recipe(h Hooks, w *plan.Write) []plan.Step {
	return g.withClaim(w, g.withLatest(w, g.recipe(h, w)))
}

func (g Gen) recipe(h Hooks, w *plan.Write) []plan.Step {
	switch shape := g.C.ShapeOf(w); shape {
	case adapters.PublishThenCheck:
		if h.PublishThenCheck != nil {
			return h.PublishThenCheck(w)
		}
		return g.AutoCommitViewRecipe(w, h.View(w)...)
	case adapters.VerifyThenPublish:
		if h.VerifyThenPublish != nil {
			return h.VerifyThenPublish(w)
		}
		if h.Staged == nil || h.Prepare == nil {
			panic("sqlgen: " + g.S.Engine + " has no verify-then-publish builder for " + string(w.Materialized))
		}
		return g.verifyThenPublish(h, w)
	case adapters.OneScript:
		if h.Staged == nil || h.Prepare == nil || h.EmptyTable == nil {
			panic("sqlgen: " + g.S.Engine + " has no staging table, prepare or empty-table hook for its script")
		}
		return g.script(h, w)
	}
	steps := g.transaction(h, w)
	if !g.C.TransactionalDDL && !g.C.TempTableInTransaction {
		steps = outsideTransaction(steps)
	}
	return steps
}

// transaction is the one-transaction shape: prepare, audit start, BEGIN,
// lock, stage, validate, write, checks, state, audit finish, COMMIT.
func (g Gen) transaction(h Hooks, w *plan.Write) []plan.Step {
	dest := g.Qualify(w.Target)
	var steps []plan.Step
	add := func(p plan.Purpose, comment, sql string) {
		steps = append(steps, plan.Step{Purpose: p, Comment: comment, SQL: sql})
	}
	if w.Materialized == plan.Incremental {
		add(plan.Prepare, "the destination, empty, if it does not exist yet", g.CreateIfMissing(w))
		if g.S.PartitionIndexDDL != nil && w.Window != nil && w.PartitionBy != "" {
			name := g.DerivedName(w.Target.Name, "__idemc_"+w.PartitionBy)
			add(plan.Prepare, "an index on the partition column: a window's delete and NULL check read only the window",
				g.S.PartitionIndexDDL(g.Qualify(w.Target), g.Quote(name), g.Quote(w.PartitionBy)))
		}
	}
	add(plan.AuditStart, "record the unit as running (committed on its own)", g.AuditStart(w.State, auditOf(w, "running")))
	add(plan.Begin, "", h.Begin)
	if g.C.UnitLock {
		add(plan.Lock, "serialize writers of this unit until commit", h.Lock(w))
		spec := &plan.LockSpec{Key: dest, Timeout: h.LockTimeout}
		steps[len(steps)-1].Lock = spec
		if h.Unlock != nil {
			spec.Release = h.Unlock(w)
		}
	}
	stage := g.Quote(StageName(w))
	count := ""
	switch w.Materialized {
	case plan.View:
		// The checks read the new view inside the transaction that
		// replaced it: a failing one rolls back to the previous definition.
		steps = append(steps, h.View(w)...)
		steps = append(steps, g.ViewCheckSteps(w)...)
	case plan.Table:
		var pub []plan.Step
		pub, count = h.Table(w)
		steps = append(steps, pub...)
		steps = append(steps, g.checkSteps(w)...)
	case plan.Incremental:
		if partitionWrite(w) {
			// A partition is replaced straight from the model's query: no
			// stage to write and read back. The guard keeps NULL partition
			// values, and the validate step refuses them before commit.
			steps = append(steps, g.partitionSteps(w)...)
			steps = append(steps, g.validate(PartitionNullCheck(w.PartitionBy), w, "a NULL "+w.PartitionBy+" would land in no partition"))
			steps = append(steps, g.checkSteps(w)...)
			count = fmt.Sprintf("SELECT count(*) FROM %s AS t WHERE %s", dest, g.Window(w, "t"))
			break
		}
		add(plan.Stage, "the batch", h.CreateStage(stage, g.Guarded(w)))
		if len(w.UniqueKey) > 0 {
			steps = append(steps, g.validate(BatchKeyCheck(w.UniqueKey), w, "refuse a batch that repeats a key before writing anything"))
		}
		steps = append(steps, g.writeSteps(h, w, stage)...)
		steps = append(steps, g.checkSteps(w)...)
		steps = append(steps, g.StateSteps(w, stage)...)
		count = "SELECT count(*) FROM " + stage
	}
	fin := g.AuditFinishStep(w, count)
	fin.Comment = "record success with the row count, in the write's transaction"
	steps = append(steps, fin)
	if w.Materialized == plan.Incremental && !partitionWrite(w) && h.DropStage != nil {
		if d := h.DropStage(stage); d != "" {
			add(plan.Cleanup, "drop the batch", d)
		}
	}
	add(plan.Commit, "", h.Commit)
	if h.Unlock != nil {
		add(plan.Cleanup, "release the unit's lock", h.Unlock(w))
	}
	return steps
}

// partitionWrite reports whether a unit replaces (or appends to) one
// partition window, which needs no stage.
func partitionWrite(w *plan.Write) bool {
	return w.Window != nil && w.PartitionBy != "" && w.Strategy != "merge"
}

// partitionSteps delete the window (unless appending) and insert the
// guarded query.
func (g Gen) partitionSteps(w *plan.Write) []plan.Step {
	dest := g.Qualify(w.Target)
	batch := "(\n" + g.Guarded(w) + "\n) AS idemc_batch"
	ins := plan.Step{Purpose: plan.Insert, Comment: "write the partition"}
	if w.Columns == nil {
		ins.SQL = fmt.Sprintf("INSERT INTO %s\nSELECT * FROM %s", dest, batch)
	} else {
		cols := g.ColumnList(w.Columns, "")
		ins.SQL = fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM %s", dest, cols, cols, batch)
	}
	if w.Strategy == "append" {
		ins.Comment = "append the batch (allow_append: a rerun adds the rows again)"
		return []plan.Step{ins}
	}
	comment := "replace the partition window " + w.Window.Key
	if w.Strategy == "insert_overwrite" && !g.C.PartitionOverwrite {
		comment += " (insert_overwrite is delete + insert on this engine)"
	}
	return []plan.Step{{Purpose: plan.Delete, Comment: comment, SQL: g.DeleteRegion(w, "")}, ins}
}

// writeSteps write a staged batch: by key, by merge, appended, or replacing
// the whole table on a full refresh.
func (g Gen) writeSteps(h Hooks, w *plan.Write, stage string) []plan.Step {
	dest := g.Qualify(w.Target)
	ins := plan.Step{Purpose: plan.Insert, Comment: "write the batch", SQL: g.InsertFromStage(w, stage)}
	switch {
	case w.FullRefresh && w.Recreate && h.Recreate != nil:
		return h.Recreate(w, stage)
	case w.FullRefresh:
		empty := "DELETE FROM " + dest
		if h.EmptyTable != nil {
			empty = h.EmptyTable(dest)
		}
		return []plan.Step{{Purpose: plan.Delete, Comment: "full refresh: replace every row", SQL: empty}, ins}
	case w.Strategy == "append":
		ins.Comment = "append the batch (allow_append: a rerun adds the rows again)"
		return []plan.Step{ins}
	case w.Strategy == "merge" && h.Upsert == nil && g.C.Merge:
		return g.MergeSteps(w, stage)
	case w.Strategy == "merge":
		return h.Upsert(w, stage)
	default: // delete_insert by key
		return []plan.Step{{Purpose: plan.Delete, Comment: "delete the batch's keys (null-safe)", SQL: g.DeleteRegion(w, stage)}, ins}
	}
}

// Validate is a step refusing a bad batch.
func (g Gen) Validate(c *plan.Check, w *plan.Write, comment string) plan.Step {
	return g.validate(c, w, comment)
}

// CheckSteps are the declared checks of a write.
func (g Gen) CheckSteps(w *plan.Write) []plan.Step { return g.checkSteps(w) }

// AuditStartStep and AuditFinishStep are a unit's audit statements.
func (g Gen) AuditStartStep(w *plan.Write) plan.Step {
	return plan.Step{Purpose: plan.AuditStart, Comment: "record the unit as running (committed on its own)", SQL: g.AuditStart(w.State, auditOf(w, "running"))}
}

// AuditFinishStep records success; count is the scalar query of rows written.
func (g Gen) AuditFinishStep(w *plan.Write, count string) plan.Step {
	q, slots := g.AuditFinishSlots(w.State, auditOf(w, "succeeded"))
	return plan.Step{Purpose: plan.AuditFinish, Comment: "record success with the row count", SQL: q, Count: count, Slots: slots}
}

func (g Gen) validate(c *plan.Check, w *plan.Write, comment string) plan.Step {
	return plan.Step{Purpose: plan.Validate, Comment: comment, SQL: g.CheckQuery(c, w, false), Check: c}
}

func (g Gen) checkSteps(w *plan.Write) []plan.Step {
	out := make([]plan.Step, 0, len(w.Checks))
	for _, c := range w.Checks {
		out = append(out, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (%s)", c.Name, c.Severity), SQL: g.CheckQuery(c, w, false), Check: c})
	}
	return out
}

// ViewCheckSteps are a view's declared checks, over the whole view (a view
// has no written region), run right after the view is replaced (DESIGN §8).
// Engines whose DDL commits on its own run them after the view is already
// published: a failure marks the unit failed, so the next build reruns it.
func (g Gen) ViewCheckSteps(w *plan.Write) []plan.Step {
	out := make([]plan.Step, 0, len(w.Checks))
	for _, c := range w.Checks {
		out = append(out, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (%s) over the whole view", c.Name, c.Severity), SQL: g.CheckQuery(c, w, true), Check: c})
	}
	return out
}

// AutoCommitViewRecipe is a view's recipe on an engine whose CREATE VIEW
// commits on its own: audit start, publish, the checks on the published
// view, audit finish. publish is the engine's CREATE OR REPLACE VIEW step.
func (g Gen) AutoCommitViewRecipe(w *plan.Write, publish ...plan.Step) []plan.Step {
	steps := append([]plan.Step{g.AuditStartStep(w)}, publish...)
	steps = append(steps, g.ViewCheckSteps(w)...)
	return append(steps, g.AuditFinishStep(w, ""))
}

// MergeSteps is the standard MERGE upsert.
func (g Gen) MergeSteps(w *plan.Write, stage string) []plan.Step {
	return []plan.Step{{Purpose: plan.Merge, Comment: "update matched keys, insert new ones (null-safe)", SQL: g.Merge(w, stage)}}
}

// auditOf returns the write's audit row with a status, or a placeholder row
// for a plan printed before any run exists.
func auditOf(w *plan.Write, status string) *plan.AuditRow {
	var r plan.AuditRow
	if w.Audit != nil {
		r = *w.Audit
	} else {
		r = plan.AuditRow{RunID: "<run_id>", Job: w.Model, CodeHash: "<code_hash>", Target: "<target>"}
		if w.Window != nil {
			r.Partition = w.Window.Key
		}
	}
	r.Status = status
	return &r
}

// Indent indents every line of s by two spaces (for readable nested SQL).
func Indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// outsideTransaction moves what an engine without transactional DDL would
// commit implicitly out of the transaction (Snowflake): prepare steps
// first, the stage (a temporary table: DDL) just before BEGIN, cleanups
// (DROP TABLE: DDL) after COMMIT. The relative order of everything else is
// kept.
func outsideTransaction(steps []plan.Step) []plan.Step {
	var prep, stage, mid, clean []plan.Step
	for _, s := range steps {
		switch s.Purpose {
		case plan.Prepare:
			prep = append(prep, s)
		case plan.Stage:
			stage = append(stage, s)
		case plan.Cleanup:
			clean = append(clean, s)
		default:
			mid = append(mid, s)
		}
	}
	out := append([]plan.Step{}, prep...)
	placed := false
	for _, s := range mid {
		if s.Purpose == plan.Begin && !placed {
			out = append(out, stage...)
			placed = true
		}
		out = append(out, s)
	}
	if !placed {
		out = append(out, stage...)
	}
	return append(out, clean...)
}
