package runner

import (
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
)

// asideSteps is the recipe of a unit whose schema changes go to a copy of
// its destination, on an engine whose DDL commits on its own
// (adapters.AsideBuilder): the running row; BEGIN and the unit's lock,
// which serializes the table's writers across runs, so the copy misses no
// one's rows; the copy with the new columns (alters are the schema
// statements for the destination); the write and its checks, in a
// transaction on the copy; the atomic swap; then the watermark and the
// audit row in a transaction of their own. A failure or a crash before the
// swap leaves the destination as it was; a crash after it leaves the new
// table and a running row, which the next run marks abandoned and redoes
// (with nothing left to change).
func (r *run) asideSteps(ab adapters.AsideBuilder, w *adapters.Write, alters []adapters.Step, copyRows bool) []adapters.Step {
	aside := r.asideOf(w.Target, "__idemc_new")
	var prelude []string
	prelude = append(prelude, ab.CopyTable(aside, w.Target, copyRows)...)
	for _, s := range alters {
		prelude = append(prelude, s.SQL) // written for the copy (schemaDDL.target)
	}
	return r.swapSteps(ab, w, prelude, r.d.DropTable(r.asideOf(w.Target, "__idemc_old")))
}

// asideOf names a relation beside rel (the copy, the previous table): the
// same derived name the dialect's own recipes use, within its identifier
// limit (a long table's name plus the suffix was refused on MySQL).
func (r *run) asideOf(rel adapters.Relation, suffix string) adapters.Relation {
	l := r.d.IdentLimit()
	rel.Name = sqlgen.Derive(l, l.Name, rel.Name, suffix)
	return rel
}

// swapSteps is asideSteps' recipe around prelude, the statements that make
// the copy; dropOld drops the previous relation once swapped out.
func (r *run) swapSteps(ab adapters.AsideBuilder, w *adapters.Write, prelude []string, dropOld string) []adapters.Step {
	aside, old := r.asideOf(w.Target, "__idemc_new"), r.asideOf(w.Target, "__idemc_old")
	wa := *w
	wa.Target = aside
	real, body := r.d.Recipe(w), r.d.Recipe(&wa)

	var out, cleanup, unlock []adapters.Step
	done := false
	for _, s := range real {
		switch {
		case s.Purpose == adapters.AuditStart, s.Purpose == adapters.Begin, s.Purpose == adapters.Lock:
			out = append(out, s)
		case s.Purpose == adapters.Commit:
			done = true
		case s.Purpose == adapters.Cleanup && done:
			unlock = append(unlock, s) // the unit's session lock, released last
		}
	}
	out = append(out, adapters.Step{Purpose: adapters.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld})
	for _, q := range prelude {
		out = append(out, adapters.Step{Purpose: adapters.SchemaStep, Comment: "the new relation, aside: the write and its checks go to it", SQL: q})
	}
	var begin adapters.Step
	var final []adapters.Step // the watermark and the audit row, after the swap
	committed := false
	for _, s := range body {
		switch {
		case s.Purpose == adapters.Begin:
			begin = s
			out = append(out, s)
		case s.Purpose == adapters.Prepare, s.Purpose == adapters.AuditStart, s.Purpose == adapters.Lock:
		case s.Purpose == adapters.StateStep:
			final = append(final, s)
		case s.Purpose == adapters.AuditFinish:
			s.Count = strings.ReplaceAll(s.Count, r.d.Qualify(aside), r.d.Qualify(w.Target))
			final = append(final, s)
		case s.Purpose == adapters.Cleanup && !committed:
			cleanup = append(cleanup, s) // the stage, read by the watermark step
		case s.Purpose == adapters.Cleanup:
			// the lock of the copy's name: the unit holds the destination's
		case s.Purpose == adapters.Commit:
			committed = true
			out = append(out, s)
			out = append(out, adapters.Step{Purpose: adapters.Publish, Comment: "swap the checked copy in atomically", SQL: ab.SwapTable(w.Target, aside, old)})
			out = append(out, adapters.Step{Purpose: adapters.Cleanup, Comment: "drop the previous relation", SQL: dropOld})
			out = append(out, begin)
			out = append(out, final...)
			out = append(out, s)
		default:
			out = append(out, s)
		}
	}
	cleanup = append(cleanup, adapters.Step{Purpose: adapters.Cleanup, Comment: "the copy, left by a failed unit", SQL: r.d.DropTable(aside)})
	return append(append(out, cleanup...), unlock...)
}

// kindSwapSteps replace a view by a table or a table by a view on an
// engine whose DDL commits on its own: the new relation is built aside
// (a view: created and checked; a table: created empty, written and
// checked) and swapped in, so a failed unit keeps the old relation.
func (r *run) kindSwapSteps(ab adapters.AsideBuilder, w *adapters.Write, dropOld string) []adapters.Step {
	aside, old := r.asideOf(w.Target, "__idemc_new"), r.asideOf(w.Target, "__idemc_old")
	clear := []string{"DROP VIEW IF EXISTS " + r.d.Qualify(aside), r.d.DropTable(aside)}
	wa := *w
	wa.Target = aside
	if w.Materialized != adapters.View {
		var prelude []string
		for _, s := range r.d.Recipe(&wa) {
			if s.Purpose == adapters.Prepare {
				prelude = append(prelude, s.SQL)
			}
		}
		return r.swapSteps(ab, w, append(clear, prelude...), dropOld)
	}
	out := []adapters.Step{{Purpose: adapters.SchemaStep, Comment: "a previous relation left by a run that died after its swap", SQL: dropOld}}
	for _, q := range clear {
		out = append(out, adapters.Step{Purpose: adapters.SchemaStep, Comment: "a leftover view or table from a dead run", SQL: q})
	}
	for _, s := range r.d.Recipe(&wa) {
		switch s.Purpose {
		case adapters.Publish:
			s.Purpose, s.Comment = adapters.Stage, "the view, aside: its checks read it before the swap"
			out = append(out, s)
		case adapters.AuditFinish:
			out = append(out,
				adapters.Step{Purpose: adapters.Publish, Comment: "swap the checked view in atomically", SQL: ab.SwapTable(w.Target, aside, old)},
				adapters.Step{Purpose: adapters.Cleanup, Comment: "drop the previous table", SQL: dropOld}, s)
		default:
			out = append(out, s)
		}
	}
	return append(out, adapters.Step{Purpose: adapters.Cleanup, Comment: "the view, left by a failed unit", SQL: clear[0]})
}
