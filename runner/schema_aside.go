package runner

import (
	"strings"

	"github.com/idemc/idemc/adapters"
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
	aside, old := w.Target, w.Target
	aside.Name += "__idemc_new"
	old.Name += "__idemc_old"
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
	schema := func(sql, comment string) {
		out = append(out, adapters.Step{Purpose: adapters.SchemaStep, Comment: comment, SQL: sql})
	}
	schema(r.d.DropTable(old), "a previous table left by a run that died after its swap")
	for _, q := range ab.CopyTable(aside, w.Target, copyRows) {
		schema(q, "copy the destination aside: the column changes and the write go to the copy")
	}
	from, to := "ALTER TABLE "+r.d.Qualify(w.Target), "ALTER TABLE "+r.d.Qualify(aside)
	for _, s := range alters {
		schema(strings.Replace(s.SQL, from, to, 1), s.Comment+" (on the copy)")
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
			out = append(out, adapters.Step{Purpose: adapters.Cleanup, Comment: "drop the previous table", SQL: r.d.DropTable(old)})
			out = append(out, begin)
			out = append(out, final...)
			out = append(out, s)
		default:
			out = append(out, s)
		}
	}
	return append(append(out, cleanup...), unlock...)
}
