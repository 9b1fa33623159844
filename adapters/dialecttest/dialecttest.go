// Package dialecttest checks every registered engine's dialect against its
// capabilities and holds the helpers the dialect tests share: the golden
// file comparison with -update, and the evaluation of a surrogate key
// expression against DESIGN §5's key computed in Go. Each engine's dialect
// test calls CheckEngine.
package dialecttest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// CheckEngine builds the recipe of every unit of Writes, and of every
// schema change of Changes, on the named engine and fails t for each way a
// recipe breaks the engine's capabilities (CheckRecipe, CheckComposed).
func CheckEngine(t *testing.T, engine string) {
	t.Helper()
	ad, ok := adapters.Lookup(engine)
	if !ok {
		t.Fatalf("engine %s is not registered", engine)
	}
	for _, c := range Writes() {
		for _, problem := range CheckRecipe(ad.Capabilities, c.Write, ad.Dialect.Recipe(c.Write)) {
			t.Errorf("%s, %s (%s): %s", engine, c.Name, ad.Capabilities.ShapeOf(c.Write), problem)
		}
	}
	changes := Changes(ad)
	if len(changes) == 0 {
		t.Errorf("%s: no schema change to check (neither transactional DDL nor an AsideBuilder dialect)", engine)
	}
	for _, c := range changes {
		for _, problem := range CheckComposed(ad.Capabilities, sqlgen.Recipe(ad.Dialect, c.Write), c.Swap) {
			t.Errorf("%s, %s: %s", engine, c.Name, problem)
		}
	}
}

// writes are the purposes that change the destination.
var writes = map[plan.Purpose]bool{plan.Delete: true, plan.Insert: true, plan.Merge: true, plan.Publish: true}

// CheckRecipe lists how steps, w's recipe, break the capabilities caps:
//   - one audit_start and one audit_finish, and a commit after the finish;
//   - every validate step before the first write (delete, insert, merge,
//     publish), except the NULL-partition check of a partition written
//     without a stage, which reads the written window before commit;
//   - a lock step before the first write when the engine locks units;
//   - in one transaction or one script: BEGIN and COMMIT, every write and
//     every error check between them, and no DDL between them unless DDL
//     is transactional (a temporary table where it does not end one);
//   - verify, then publish: every error check before the first write;
//   - publish, then check: no transaction, checks after the publish.
func CheckRecipe(caps adapters.Capabilities, w *plan.Write, steps []plan.Step) []string {
	r := survey(steps)
	r.order(caps)
	switch caps.ShapeOf(w) {
	case adapters.OneTransaction, adapters.OneScript:
		r.transaction(caps)
	case adapters.VerifyThenPublish:
		for _, i := range r.errorChecks {
			if r.firstWrite >= 0 && i > r.firstWrite {
				r.bad("error check %q (step %d) after the first write (step %d): it must verify before publishing", steps[i].Check.Name, i, r.firstWrite)
			}
		}
	case adapters.PublishThenCheck:
		if r.begins+r.commits > 0 {
			r.bad("a transaction around DDL that commits on its own")
		}
		for _, i := range r.errorChecks {
			if r.firstWrite < 0 || i < r.firstWrite {
				r.bad("check %q (step %d) before the view is published", steps[i].Check.Name, i)
			}
		}
	}
	return r.problems
}

// recipe is what CheckRecipe reads of a recipe: where its steps are.
type recipe struct {
	steps                  []plan.Step
	starts, finishes       int
	finish                 int // the last audit_finish
	begins, commits        int
	begin, commit          int // the first begin, the last commit
	lock                   int // the first lock, -1 for none
	firstWrite, lastWrite  int // -1 for none
	errorChecks, validates []int
	problems               []string
}

func survey(steps []plan.Step) *recipe {
	r := &recipe{steps: steps, finish: -1, begin: -1, commit: -1, lock: -1, firstWrite: -1, lastWrite: -1}
	for i, s := range steps {
		switch {
		case s.Purpose == plan.AuditStart:
			r.starts++
		case s.Purpose == plan.AuditFinish:
			r.finishes, r.finish = r.finishes+1, i
		case s.Purpose == plan.Begin:
			r.begins++
			if r.begin < 0 {
				r.begin = i
			}
		case s.Purpose == plan.Commit:
			r.commits, r.commit = r.commits+1, i
		case s.Purpose == plan.Lock && r.lock < 0:
			r.lock = i
		case s.Purpose == plan.Validate:
			r.validates = append(r.validates, i)
		case s.Purpose == plan.CheckStep && s.Check != nil && s.Check.Severity == "error":
			r.errorChecks = append(r.errorChecks, i)
		case writes[s.Purpose]:
			if r.firstWrite < 0 {
				r.firstWrite = i
			}
			r.lastWrite = i
		}
	}
	return r
}

func (r *recipe) bad(format string, args ...any) {
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
}

// order checks what every shape keeps: the audit rows, the commit after
// the finish, validation and the lock before the first write.
func (r *recipe) order(caps adapters.Capabilities) {
	if r.starts != 1 || r.finishes != 1 {
		r.bad("%d audit_start and %d audit_finish steps, want one of each", r.starts, r.finishes)
	}
	if r.commits > 0 && r.finish > r.commit {
		r.bad("audit_finish (step %d) after commit (step %d)", r.finish, r.commit)
	}
	for _, i := range r.validates {
		// A partition written straight from the query has no stage: its
		// NULL check reads what the write put there, before commit.
		c := r.steps[i].Check
		afterWrite := c != nil && c.Kind == plan.CheckPartitionNull && r.commits > 0
		if r.firstWrite >= 0 && i > r.firstWrite && !afterWrite {
			r.bad("validate step %d after the first write (step %d)", i, r.firstWrite)
		}
		if r.commits > 0 && i > r.commit {
			r.bad("validate step %d after commit (step %d)", i, r.commit)
		}
	}
	if (caps.UnitLock || caps.UnitClaim) && (r.lock < 0 || r.firstWrite >= 0 && r.lock > r.firstWrite) {
		r.bad("no lock step before the first write (step %d)", r.firstWrite)
	}
	if caps.UnitClaim {
		r.claim()
	}
}

// claim checks a unit claim (Capabilities.UnitClaim): a lock step with its
// ClaimSpec, outside any transaction (its row must commit on its own to be
// seen), released by the recipe's last cleanup.
func (r *recipe) claim() {
	if r.lock < 0 {
		return
	}
	l := r.steps[r.lock].Lock
	if l == nil || l.Claim == nil || l.Release == "" || l.Timeout <= 0 {
		r.bad("the lock step (step %d) is no claim with a release and a wait", r.lock)
		return
	}
	if r.begin >= 0 && r.lock > r.begin && r.lock < r.commit {
		r.bad("the claim (step %d) inside the transaction (steps %d-%d)", r.lock, r.begin, r.commit)
	}
	last := r.steps[len(r.steps)-1]
	for i := len(r.steps) - 1; i >= 0 && r.steps[i].Purpose == plan.Cleanup; i-- {
		if r.steps[i].SQL == l.Release {
			return
		}
	}
	r.bad("no cleanup releases the claim (the last step is %s)", last.Purpose)
}

// transaction checks a one-transaction or one-script recipe.
func (r *recipe) transaction(caps adapters.Capabilities) {
	if r.begins != 1 || r.commits != 1 || r.begin > r.commit {
		r.bad("%d begin and %d commit steps in order, want one of each", r.begins, r.commits)
		return
	}
	if r.firstWrite >= 0 && (r.firstWrite < r.begin || r.lastWrite > r.commit) {
		r.bad("a write (steps %d-%d) outside the transaction (steps %d-%d)", r.firstWrite, r.lastWrite, r.begin, r.commit)
	}
	for _, i := range r.errorChecks {
		if caps.ChecksInWrite && (i < r.begin || i > r.commit) {
			r.bad("error check %q (step %d) outside the transaction (steps %d-%d)", r.steps[i].Check.Name, i, r.begin, r.commit)
		}
	}
	if caps.TransactionalDDL {
		return
	}
	for i := r.begin + 1; i < r.commit; i++ {
		if ddl(r.steps[i].SQL, caps.TempTableInTransaction) {
			r.bad("DDL inside the transaction, which it would commit (step %d: %s)", i, firstLine(r.steps[i].SQL))
		}
	}
}

// ddl reports whether a statement is CREATE, ALTER, DROP or RENAME (after
// any leading comment); with temp, a temporary table's CREATE or DROP is
// not.
func ddl(sql string, temp bool) bool {
	s := strings.TrimSpace(sql)
	for strings.HasPrefix(s, "/*") {
		end := strings.Index(s, "*/")
		if end < 0 {
			break
		}
		s = strings.TrimSpace(s[end+2:])
	}
	f := strings.Fields(strings.ToUpper(s))
	if len(f) == 0 {
		return false
	}
	switch f[0] {
	case "CREATE", "DROP":
		return !(temp && len(f) > 1 && (f[1] == "TEMPORARY" || f[1] == "TEMP"))
	case "ALTER", "RENAME":
		return true
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
