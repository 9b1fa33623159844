package sqlgen

import (
	"slices"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Suffixes of the relations a schema change builds beside the destination.
const (
	NewSuffix = "__idemc_new" // the copy, or the new relation, aside
	OldSuffix = "__idemc_old" // the previous relation, swapped out
)

// Recipe is a unit's whole recipe on d: the dialect's own, with the change
// of its destination's definition the runner decided (w.Schema) composed
// in. Where DDL is transactional the change runs inside the unit's
// transaction, after BEGIN and its lock; elsewhere it goes to a copy of
// the destination (adapters.AsideBuilder), or to a relation of the other
// kind (adapters.KindSwapper), swapped in after the checks.
func Recipe(d adapters.Dialect, w *plan.Write) []plan.Step {
	ch := w.Schema
	if ch == nil {
		return d.Recipe(w)
	}
	if ch.Kind != nil {
		return kindSwapSteps(d, d.(adapters.KindSwapper), w, ch.Kind.FromView)
	}
	recipe := d.Recipe(w)
	np := LeadingPrepare(recipe)
	if ch.Aside {
		return append(recipe[:np:np], asideSteps(d, w, recipe, ch.Alters, ch.CopyRows)...)
	}
	alters := ch.Alters
	if ch.Reprepare {
		alters = append([]plan.Step(nil), ch.Alters[:ch.ReprepareAt]...)
		for _, s := range recipe[:np] {
			s.Purpose = plan.SchemaStep
			alters = append(alters, s)
		}
		alters = append(alters, ch.Alters[ch.ReprepareAt:]...)
	}
	if ch.MovePrepare {
		return spliceSchema(recipe[np:], 0, alters)
	}
	return spliceSchema(recipe, np, alters)
}

// LeadingPrepare counts a recipe's prepare steps, which come first.
func LeadingPrepare(steps []plan.Step) int {
	i := 0
	for i < len(steps) && steps[i].Purpose == plan.Prepare {
		i++
	}
	return i
}

// AsideOf names a relation beside rel (the copy, the previous table) with
// a suffix: the same derived name the dialects' own recipes use, within
// the engine's identifier limit (a long table's name plus the suffix was
// refused on MySQL).
func AsideOf(l adapters.Literals, rel plan.Relation, suffix string) plan.Relation {
	lim := l.IdentLimit()
	rel.Name = Derive(lim, lim.Name, rel.Name, suffix)
	return rel
}

// IsRelease reports whether a cleanup step releases a session lock that
// a lock step of steps took.
func IsRelease(steps []plan.Step, s plan.Step) bool {
	for _, l := range steps {
		if l.Purpose == plan.Lock && l.Lock != nil && l.Lock.Release != "" && l.Lock.Release == s.SQL {
			return true
		}
	}
	return false
}

// spliceSchema puts the schema steps first in the unit's transaction:
// after BEGIN and the unit's lock, before the write (the runner's retry
// reruns them with the rest of the transaction). A recipe without BEGIN
// is left alone.
func spliceSchema(steps []plan.Step, from int, ddl []plan.Step) []plan.Step {
	for i := from; i < len(steps); i++ {
		if steps[i].Purpose != plan.Begin {
			continue
		}
		at := i + 1
		for at < len(steps) && steps[at].Purpose == plan.Lock {
			at++
		}
		out := make([]plan.Step, 0, len(steps)+len(ddl))
		out = append(append(append(out, steps[:at]...), ddl...), steps[at:]...)
		return out
	}
	return steps
}

// asideSteps is the recipe of a unit whose schema changes go to a copy of
// its destination, on an engine whose DDL commits on its own: the running
// row; BEGIN and the unit's lock, which serializes the table's writers
// across runs, so the copy misses no one's rows; the copy with the new
// columns (alters are the schema statements for the copy); the write and
// its checks, in a transaction on the copy (or, on Spark, staged and
// checked, then published to the copy); the atomic swap; then the
// watermark and the audit row (in a transaction of their own). A failure
// or a crash before the swap leaves the destination as it was; a crash
// after it leaves the new table and a running row, which the next run
// marks abandoned and redoes (with nothing left to change). recipe is the
// unit's own recipe, for its destination.
func asideSteps(d adapters.Dialect, w *plan.Write, recipe, alters []plan.Step, copyRows bool) []plan.Step {
	ab := d.(adapters.AsideBuilder)
	aside, old := AsideOf(d, w.Target, NewSuffix), AsideOf(d, w.Target, OldSuffix)
	prelude := ab.CopyTable(aside, w.Target, copyRows)
	for _, s := range alters {
		prelude = append(prelude, s.SQL)
	}
	return swapSteps(d, w, recipe, prelude, []string{ab.SwapTable(w.Target, aside, old)}, d.DropTable(old), "")
}

// swapSteps is the recipe around prelude, the statements that make the
// copy, from real, the unit's recipe for its destination; publish puts the
// checked copy in the destination's place, and dropOld drops the previous
// relation once swapped out (restore: see swapSequence). A recipe with a
// transaction publishes after its COMMIT and records the unit in a second
// one; a recipe without (Spark, BigQuery's insert_overwrite) publishes
// after its checks and its write to the copy, before its bookkeeping.
func swapSteps(d adapters.Dialect, w *plan.Write, real []plan.Step, prelude, publish []string, dropOld, restore string) []plan.Step {
	aside := AsideOf(d, w.Target, NewSuffix)
	wa := *w
	wa.Target = aside
	body := d.Recipe(&wa)
	out, unlock := lockPrelude(real)
	out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld})
	for _, q := range prelude {
		out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "the new relation, aside: the write and its checks go to it", SQL: q})
	}
	swap, cleanup := swapSequence(publish, dropOld, restore)
	toDest := func(s plan.Step) plan.Step {
		// The bookkeeping counts the published rows: the copy's, now the destination's.
		s.SQL = strings.ReplaceAll(s.SQL, d.Qualify(aside), d.Qualify(w.Target))
		s.Count = strings.ReplaceAll(s.Count, d.Qualify(aside), d.Qualify(w.Target))
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
		bookkeeping := s.Purpose == plan.StateStep || s.Purpose == plan.AuditFinish || s.Purpose == plan.LatestEnd
		switch {
		case s.Purpose == plan.Prepare, s.Purpose == plan.AuditStart, s.Purpose == plan.LatestStart, s.Purpose == plan.Lock:
		case s.Purpose == plan.Cleanup && IsRelease(body, s):
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
	cleanup = append(cleanup, plan.Step{Purpose: plan.Cleanup, Comment: "the copy, left by a failed unit or replaced by the swap", SQL: d.DropTable(aside)})
	return append(append(out, cleanup...), unlock...)
}

// lockPrelude is what a swapped recipe keeps of the destination's own
// recipe: its running row and the lock of the destination (with the BEGIN
// a transaction lock needs: a BEGIN alone would open BigQuery's script,
// and a session lock (MySQL's GET_LOCK) needs none: the copy's DDL would
// commit it at once), and the release of a session lock, which runs last.
func lockPrelude(real []plan.Step) (prelude, unlock []plan.Step) {
	// Without a transaction (Spark) the release of a unit's claim is
	// kept too.
	done := !slices.ContainsFunc(real, func(s plan.Step) bool { return s.Purpose == plan.Commit })
	for i, s := range real {
		switch {
		case s.Purpose == plan.LatestStart, s.Purpose == plan.AuditStart, s.Purpose == plan.Lock:
			prelude = append(prelude, s)
		case s.Purpose == plan.Begin && i+1 < len(real) && real[i+1].Purpose == plan.Lock && (real[i+1].Lock == nil || real[i+1].Lock.Release == ""):
			prelude = append(prelude, s)
		case s.Purpose == plan.Commit:
			done = true
		case s.Purpose == plan.Cleanup && done && IsRelease(real, s):
			unlock = append(unlock, s)
		}
	}
	return prelude, unlock
}

// kindSwapSteps replace a view by a table or a table by a view on an
// engine whose DDL commits on its own: the new relation is built aside
// (a view: created and checked; a table: created empty, written and
// checked) and swapped in (adapters.KindSwapper), so a failed unit keeps
// the old relation. fromView says the destination is a view now.
func kindSwapSteps(d adapters.Dialect, ks adapters.KindSwapper, w *plan.Write, fromView bool) []plan.Step {
	aside, old := AsideOf(d, w.Target, NewSuffix), AsideOf(d, w.Target, OldSuffix)
	dropOld := d.DropTable(old)
	if fromView {
		dropOld = "DROP VIEW IF EXISTS " + d.Qualify(old)
	}
	clear := []string{"DROP VIEW IF EXISTS " + d.Qualify(aside), d.DropTable(aside)}
	publish := ks.SwapKind(w, aside, old, fromView)
	restore := ""
	if len(publish) > 1 {
		restore = ks.RenameRelation(old, w.Target, fromView)
	}
	wa := *w
	wa.Target = aside
	body := d.Recipe(&wa)
	// The session settings among the prepare steps name no relation: they
	// come first, as in the unit's own recipe, so that the audit row's job
	// carries them too.
	var settings []plan.Step
	var prelude []string
	for _, s := range body {
		switch {
		case s.Purpose != plan.Prepare:
		case !strings.Contains(s.SQL, d.Qualify(aside)):
			settings = append(settings, s)
		default:
			prelude = append(prelude, s.SQL)
		}
	}
	if w.Materialized != plan.View {
		return append(settings, swapSteps(d, w, d.Recipe(w), append(clear, prelude...), publish, dropOld, restore)...)
	}
	return append(settings, viewSwapSteps(d.Qualify(aside), destClaim(body, d.Recipe(w)), clear, publish, dropOld, restore)...)
}

// destClaim is body, a recipe for a relation aside, with the claim of the
// destination (from real, its own recipe) in place of the aside name's:
// runs writing the destination wait on one key, whatever they build aside.
func destClaim(body, real []plan.Step) []plan.Step {
	var claim *plan.Step
	for i := range real {
		if real[i].Purpose == plan.Lock && real[i].Lock != nil && real[i].Lock.Claim != nil {
			claim = &real[i]
		}
	}
	if claim == nil {
		return body
	}
	out := make([]plan.Step, 0, len(body))
	for _, s := range body {
		switch {
		case s.Purpose == plan.Lock && s.Lock != nil && s.Lock.Claim != nil:
			s = *claim
		case s.Purpose == plan.Cleanup && IsRelease(body, s):
			s.SQL = claim.Lock.Release
		}
		out = append(out, s)
	}
	return out
}

// viewSwapSteps is kindSwapSteps for a view: created aside from body (the
// view's recipe for the aside name) and checked there, then swapped in
// before its audit row; aside is the view's SQL name.
func viewSwapSteps(aside string, body []plan.Step, clear, publish []string, dropOld, restore string) []plan.Step {
	swap, undo := swapSequence(publish, dropOld, restore)
	out := []plan.Step{{Purpose: plan.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld}}
	for _, q := range clear {
		out = append(out, plan.Step{Purpose: plan.SchemaStep, Comment: "a leftover view or table from a dead run", SQL: q})
	}
	for _, s := range body {
		switch s.Purpose {
		case plan.Prepare:
			if strings.Contains(s.SQL, aside) {
				out = append(out, s) // the settings came first
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
