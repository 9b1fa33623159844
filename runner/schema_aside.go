package runner

import (
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// asideSteps is the recipe of a unit whose schema changes go to a copy of
// its destination, on an engine whose DDL commits on its own
// (adapters.AsideBuilder): the running row; BEGIN and the unit's lock,
// which serializes the table's writers across runs, so the copy misses no
// one's rows; the copy with the new columns (alters are the schema
// statements for the destination); the write and its checks, in a
// transaction on the copy (or, on Spark, staged and checked, then
// published to the copy); the atomic swap; then the watermark and the
// audit row (in a transaction of their own). A failure or a crash before
// the swap leaves the destination as it was; a crash after it leaves the
// new table and a running row, which the next run marks abandoned and
// redoes (with nothing left to change).
// recipe is the unit's own recipe, for its destination.
func (r *run) asideSteps(ab adapters.AsideBuilder, w *plan.Write, recipe, alters []plan.Step, copyRows bool) []plan.Step {
	aside, old := r.asideOf(w.Target, "__idemc_new"), r.asideOf(w.Target, "__idemc_old")
	var prelude []string
	prelude = append(prelude, ab.CopyTable(aside, w.Target, copyRows)...)
	for _, s := range alters {
		prelude = append(prelude, s.SQL) // written for the copy (schemaDDL.target)
	}
	return r.swapSteps(w, recipe, prelude, []string{ab.SwapTable(w.Target, aside, old)}, r.d.DropTable(old), "")
}

// asideOf names a relation beside rel (the copy, the previous table): the
// same derived name the dialect's own recipes use, within its identifier
// limit (a long table's name plus the suffix was refused on MySQL).
func (r *run) asideOf(rel plan.Relation, suffix string) plan.Relation {
	l := r.d.IdentLimit()
	rel.Name = sqlgen.Derive(l, l.Name, rel.Name, suffix)
	return rel
}

// swapSteps is asideSteps' recipe around prelude, the statements that make
// the copy, from real, the unit's recipe for its destination; publish puts the checked copy in the destination's place, and
// dropOld drops the previous relation once swapped out (restore: see
// swapSequence). A recipe with a
// transaction publishes after its COMMIT and records the unit in a second
// one; a recipe without (Spark, BigQuery's insert_overwrite) publishes
// after its checks and its write to the copy, before its bookkeeping.
func (r *run) swapSteps(w *plan.Write, real []plan.Step, prelude, publish []string, dropOld, restore string) []plan.Step {
	aside := r.asideOf(w.Target, "__idemc_new")
	wa := *w
	wa.Target = aside
	body := r.d.Recipe(&wa)

	var out, unlock []plan.Step
	done := false
	for i, s := range real {
		switch {
		case s.Purpose == plan.AuditStart, s.Purpose == plan.Lock:
			out = append(out, s)
		case s.Purpose == plan.Begin && i+1 < len(real) && real[i+1].Purpose == plan.Lock:
			out = append(out, s) // the destination's lock needs it (a BEGIN alone would open BigQuery's script)
		case s.Purpose == plan.Commit:
			done = true
		case s.Purpose == plan.Cleanup && done && isRelease(real, s):
			unlock = append(unlock, s) // the unit's session lock, released last
		}
	}
	out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld})
	for _, q := range prelude {
		out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "the new relation, aside: the write and its checks go to it", SQL: q})
	}
	swap, cleanup := swapSequence(publish, dropOld, restore)
	toDest := func(s plan.Step) plan.Step {
		// The bookkeeping counts the published rows: the copy's, now the destination's.
		s.SQL = strings.ReplaceAll(s.SQL, r.d.Qualify(aside), r.d.Qualify(w.Target))
		s.Count = strings.ReplaceAll(s.Count, r.d.Qualify(aside), r.d.Qualify(w.Target))
		return s
	}
	tx := false
	for _, s := range body {
		tx = tx || s.Purpose == plan.Commit
	}
	var begin plan.Step
	var final []plan.Step // the watermark and the audit row, after the swap
	swapped := false
	for _, s := range body {
		bookkeeping := s.Purpose == plan.StateStep || s.Purpose == plan.AuditFinish
		switch {
		case s.Purpose == plan.Prepare, s.Purpose == plan.AuditStart, s.Purpose == plan.Lock:
		case s.Purpose == plan.Cleanup && isRelease(body, s):
			// the lock of the copy's name: the unit holds the destination's
		case !tx && bookkeeping:
			if !swapped {
				out, swapped = append(out, swap...), true
			}
			out = append(out, toDest(s))
		case !tx:
			out = append(out, s) // in order: Spark's idempotent-write settings are reset before the swap
		case s.Purpose == plan.Begin:
			begin = s
			out = append(out, s)
		case bookkeeping:
			final = append(final, toDest(s))
		case s.Purpose == plan.Cleanup:
			cleanup = append(cleanup, s) // the stage, read by the watermark step
		case s.Purpose == plan.Commit:
			out = append(out, s)
			out = append(out, swap...)
			out = append(out, begin)
			out = append(out, final...)
			out = append(out, s)
		default:
			out = append(out, s)
		}
	}
	if !tx && !swapped {
		out = append(out, swap...)
	}
	cleanup = append(cleanup, plan.Step{Purpose: plan.Cleanup, Comment: "the copy, left by a failed unit or replaced by the swap", SQL: r.d.DropTable(aside)})
	return append(append(out, cleanup...), unlock...)
}

// kindSwapSteps replace a view by a table or a table by a view on an
// engine whose DDL commits on its own: the new relation is built aside
// (a view: created and checked; a table: created empty, written and
// checked) and swapped in (adapters.KindSwapper), so a failed unit keeps
// the old relation. fromView says the destination is a view now.
func (r *run) kindSwapSteps(ks adapters.KindSwapper, w *plan.Write, fromView bool, dropOld string) []plan.Step {
	aside, old := r.asideOf(w.Target, "__idemc_new"), r.asideOf(w.Target, "__idemc_old")
	clear := []string{"DROP VIEW IF EXISTS " + r.d.Qualify(aside), r.d.DropTable(aside)}
	publish := ks.SwapKind(w, aside, old, fromView)
	restore := ""
	if len(publish) > 1 {
		restore = ks.RenameRelation(old, w.Target, fromView)
	}
	swap, undo := swapSequence(publish, dropOld, restore)
	wa := *w
	wa.Target = aside
	// The session settings among the prepare steps (BigQuery's job labels,
	// Snowflake's query tag) name no relation: they come first, as in the
	// unit's own recipe, so that the audit row's job carries them too.
	var settings []plan.Step
	var prelude []string
	body := r.d.Recipe(&wa)
	for _, s := range body {
		switch {
		case s.Purpose != plan.Prepare:
		case !strings.Contains(s.SQL, r.d.Qualify(aside)):
			settings = append(settings, s)
		default:
			prelude = append(prelude, s.SQL)
		}
	}
	if w.Materialized != plan.View {
		return append(settings, r.swapSteps(w, r.d.Recipe(w), append(clear, prelude...), publish, dropOld, restore)...)
	}
	out := append(settings, plan.Step{Purpose: plan.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld})
	for _, q := range clear {
		out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "a leftover view or table from a dead run", SQL: q})
	}
	for _, s := range body {
		switch s.Purpose {
		case plan.Prepare:
			if strings.Contains(s.SQL, r.d.Qualify(aside)) {
				out = append(out, s) // the settings came first, above
			}
		case plan.Publish:
			s.Purpose, s.Comment = plan.Stage, "the view, aside: its checks read it before the swap"
			out = append(out, s)
		case plan.AuditFinish:
			out = append(append(out, swap...), s)
		default:
			out = append(out, s)
		}
	}
	out = append(out, undo...)
	return append(out, plan.Step{Purpose: plan.Cleanup, Comment: "the view, left by a failed unit", SQL: clear[0]})
}

// swapSequence is the publish statements, then the drop of the previous
// relation, and the cleanup they need. A swap of several statements (two
// renames, not atomic) drops the previous relation only once all ran —
// not in a failed unit's cleanup, where it may be the only copy left — and
// restore, a cleanup, renames it back when the unit failed between them
// (it fails harmlessly when there is nothing to restore).
func swapSequence(publish []string, dropOld, restore string) (swap, cleanup []plan.Step) {
	for _, q := range publish {
		swap = append(swap, plan.Step{Purpose: plan.Publish, Comment: "put the checked relation in the destination's place", SQL: q})
	}
	drop := plan.Step{Purpose: plan.Cleanup, Comment: "drop the previous relation", SQL: dropOld}
	if restore != "" {
		drop.Purpose = plan.SchemaStep
		cleanup = append(cleanup, plan.Step{Purpose: plan.Cleanup, Comment: "a unit that failed between the renames: put the previous relation back", SQL: restore})
	}
	return append(swap, drop), cleanup
}
