package dialecttest

import (
	"fmt"
	"slices"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Change is a unit whose recipe has a schema change composed in
// (sqlgen.Recipe), and Swap the statements that must put the checked new
// relation in the destination's place (none where the change runs in the
// unit's transaction).
type Change struct {
	Name  string
	Write *plan.Write
	Swap  []string
}

// Changes are the schema changes the runner can decide on an engine: a
// new column for every table and incremental write of Writes (the
// runner syncs a table's columns only where it rebuilds tables in place or
// DDL is transactional) and a changed materialization each way.
func Changes(ad *adapters.Adapter) []Change {
	var out []Change
	for _, c := range Writes() {
		w := c.Write
		if w.Recreate {
			continue
		}
		if ch := NewColumn(ad, w); ch != nil && w.Materialized != plan.View {
			ch.Name = c.Name + ", " + ch.Name
			out = append(out, *ch)
		}
		if ch := KindChange(ad, w); ch != nil {
			ch.Name = c.Name + ", " + ch.Name
			out = append(out, *ch)
		}
	}
	return out
}

// NewColumn is w with a new column: in the unit's transaction where DDL
// is transactional, on a copy swapped in on an AsideBuilder dialect; nil
// where the runner would not change w's columns.
func NewColumn(ad *adapters.Adapter, w *plan.Write) *Change {
	d, caps := ad.Dialect, ad.Capabilities
	if w.Materialized == plan.View || w.Materialized == plan.Table && !caps.TableInPlace && !caps.TransactionalDDL {
		return nil
	}
	cw := *w
	note := plan.Column{Name: "note", Type: "INTEGER"}
	if caps.TransactionalDDL {
		cw.Schema = &plan.SchemaChange{Alters: []plan.Step{{Purpose: plan.SchemaStep, Comment: "the model's new column note", SQL: d.AddColumn(w.Target, note)}}}
		return &Change{Name: "a new column", Write: &cw}
	}
	ab, ok := d.(adapters.AsideBuilder)
	if !ok {
		return nil
	}
	copyRel, old := sqlgen.AsideOf(d, w.Target, sqlgen.NewSuffix), sqlgen.AsideOf(d, w.Target, sqlgen.OldSuffix)
	cw.Schema = &plan.SchemaChange{Aside: true, CopyRows: true, Alters: []plan.Step{{Purpose: plan.SchemaStep, Comment: "the model's new column note", SQL: d.AddColumn(copyRel, note)}}}
	return &Change{Name: "a new column on a copy", Write: &cw, Swap: []string{ab.SwapTable(w.Target, copyRel, old)}}
}

// KindChange is w replacing a relation of the other kind (a view when w
// is a table or incremental, a table when w is a view): in the unit's
// transaction where DDL is transactional, built aside and swapped in on a
// KindSwapper dialect; nil where the runner would do neither.
func KindChange(ad *adapters.Adapter, w *plan.Write) *Change {
	d, caps := ad.Dialect, ad.Capabilities
	kw := *w
	fromView := w.Materialized != plan.View
	if caps.TransactionalDDL {
		alters := []plan.Step{{Purpose: plan.SchemaStep, Comment: "the materialization changed: replace the relation", SQL: "DROP VIEW IF EXISTS " + d.Qualify(w.Target)}}
		if !fromView {
			alters = []plan.Step{{Purpose: plan.SchemaStep, Comment: "the materialization changed: replace the relation", SQL: d.DropTable(w.Target)},
				{Purpose: plan.SchemaStep, Comment: "the view, in the old relation's place", SQL: fmt.Sprintf("CREATE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		}
		kw.Schema = &plan.SchemaChange{Alters: alters, Reprepare: true, ReprepareAt: 1, MovePrepare: true}
		return &Change{Name: "the materialization changed", Write: &kw}
	}
	ks, ok := d.(adapters.KindSwapper)
	if !ok || w.Materialized == plan.Table && !caps.TableInPlace && !caps.ReplaceDefinition {
		return nil
	}
	copyRel, old := sqlgen.AsideOf(d, w.Target, sqlgen.NewSuffix), sqlgen.AsideOf(d, w.Target, sqlgen.OldSuffix)
	kw.Schema = &plan.SchemaChange{Kind: &plan.KindSwap{FromView: fromView}}
	return &Change{Name: "the materialization changed, swapped in", Write: &kw, Swap: ks.SwapKind(w, copyRel, old, fromView)}
}

// CheckComposed lists how steps, the recipe of a unit with a schema
// change, break the engine's capabilities:
//   - one audit_start and one audit_finish;
//   - no DDL between a BEGIN and its COMMIT unless DDL is transactional
//     (a temporary table where it does not end the transaction);
//   - where DDL is transactional, every schema step inside the one
//     transaction and before the first write;
//   - the swap statements, in order, after every validation and error
//     check, and the audit_finish and state steps after the swap.
func CheckComposed(caps adapters.Capabilities, steps []plan.Step, swap []string) []string {
	r := survey(steps)
	if r.starts != 1 || r.finishes != 1 {
		r.bad("%d audit_start and %d audit_finish steps, want one of each", r.starts, r.finishes)
	}
	open := -1
	for i, s := range steps {
		switch {
		case s.Purpose == plan.Begin:
			open = i
		case s.Purpose == plan.Commit:
			open = -1
		case open >= 0 && !caps.TransactionalDDL && ddl(s.SQL, caps.TempTableInTransaction):
			r.bad("DDL inside the transaction opened at step %d, which it would commit (step %d: %s)", open, i, firstLine(s.SQL))
		case s.Purpose == plan.SchemaStep && caps.TransactionalDDL && (open < 0 || r.firstWrite >= 0 && i > r.firstWrite):
			r.bad("schema step %d outside the transaction or after the first write (step %d)", i, r.firstWrite)
		}
	}
	if len(swap) == 0 {
		return r.problems
	}
	at := swapAt(steps, swap)
	if at == nil {
		r.bad("the swap %q is not among the steps, in order", swap)
		return r.problems
	}
	first, last := at[0], at[len(at)-1]
	for _, i := range append(slices.Clone(r.validates), r.errorChecks...) {
		if i > first {
			r.bad("check %q (step %d) after the swap (step %d)", steps[i].Check.Name, i, first)
		}
	}
	for i, s := range steps {
		if (s.Purpose == plan.AuditFinish || s.Purpose == plan.StateStep || s.Purpose == plan.LatestEnd) && i < last {
			r.bad("bookkeeping step %d (%s) before the swap (step %d)", i, s.Purpose, last)
		}
	}
	return r.problems
}

// swapAt is where the swap statements stand among steps, in order; nil
// when one is missing.
func swapAt(steps []plan.Step, swap []string) []int {
	var at []int
	from := 0
	for _, q := range swap {
		i := slices.IndexFunc(steps[from:], func(s plan.Step) bool { return s.SQL == q })
		if i < 0 {
			return nil
		}
		at = append(at, from+i)
		from += i + 1
	}
	return at
}
