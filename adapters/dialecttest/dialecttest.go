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
	"github.com/idemc/idemc/plan"
)

// CheckEngine builds the recipe of every unit of Writes on the named
// engine and fails t for each way a recipe breaks the engine's
// capabilities (CheckRecipe).
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
	var out []string
	bad := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	first := func(match func(plan.Step) bool) int {
		for i, s := range steps {
			if match(s) {
				return i
			}
		}
		return -1
	}
	count := func(p plan.Purpose) (n, at int) {
		at = -1
		for i, s := range steps {
			if s.Purpose == p {
				n, at = n+1, i
			}
		}
		return n, at
	}
	starts, _ := count(plan.AuditStart)
	finishes, finish := count(plan.AuditFinish)
	if starts != 1 || finishes != 1 {
		bad("%d audit_start and %d audit_finish steps, want one of each", starts, finishes)
	}
	begins, begin := count(plan.Begin)
	commits, commit := count(plan.Commit)
	begin = first(func(s plan.Step) bool { return s.Purpose == plan.Begin })
	if commits > 0 && finish > commit {
		bad("audit_finish (step %d) after commit (step %d)", finish, commit)
	}
	firstWrite := first(func(s plan.Step) bool { return writes[s.Purpose] })
	lastWrite := -1
	for i, s := range steps {
		if writes[s.Purpose] {
			lastWrite = i
		}
		if s.Purpose != plan.Validate {
			continue
		}
		// A partition written straight from the query has no stage: its
		// NULL check reads what the write put there, before commit.
		if afterWrite := s.Check != nil && s.Check.Kind == plan.CheckPartitionNull && commits > 0; firstWrite >= 0 && i > firstWrite && !afterWrite {
			bad("validate step %d after the first write (step %d)", i, firstWrite)
		}
		if commits > 0 && i > commit {
			bad("validate step %d after commit (step %d)", i, commit)
		}
	}
	if caps.UnitLock {
		if lock := first(func(s plan.Step) bool { return s.Purpose == plan.Lock }); lock < 0 || firstWrite >= 0 && lock > firstWrite {
			bad("no lock step before the first write (step %d)", firstWrite)
		}
	}
	errorChecks := func() []int {
		var at []int
		for i, s := range steps {
			if s.Purpose == plan.CheckStep && s.Check != nil && s.Check.Severity == "error" {
				at = append(at, i)
			}
		}
		return at
	}
	switch shape := caps.ShapeOf(w); shape {
	case adapters.OneTransaction, adapters.OneScript:
		if begins != 1 || commits != 1 || begin > commit {
			bad("%d begin and %d commit steps in order, want one of each", begins, commits)
			return out
		}
		if firstWrite >= 0 && (firstWrite < begin || lastWrite > commit) {
			bad("a write (steps %d-%d) outside the transaction (steps %d-%d)", firstWrite, lastWrite, begin, commit)
		}
		for _, i := range errorChecks() {
			if caps.ChecksInWrite && (i < begin || i > commit) {
				bad("error check %q (step %d) outside the transaction (steps %d-%d)", steps[i].Check.Name, i, begin, commit)
			}
		}
		if !caps.TransactionalDDL {
			for i := begin + 1; i < commit; i++ {
				if ddl(steps[i].SQL, caps.TempTableInTransaction) {
					bad("DDL inside the transaction, which it would commit (step %d: %s)", i, firstLine(steps[i].SQL))
				}
			}
		}
	case adapters.VerifyThenPublish:
		for _, i := range errorChecks() {
			if firstWrite >= 0 && i > firstWrite {
				bad("error check %q (step %d) after the first write (step %d): it must verify before publishing", steps[i].Check.Name, i, firstWrite)
			}
		}
	case adapters.PublishThenCheck:
		if begins+commits > 0 {
			bad("a transaction around DDL that commits on its own")
		}
		for _, i := range errorChecks() {
			if firstWrite < 0 || i < firstWrite {
				bad("check %q (step %d) before the view is published", steps[i].Check.Name, i)
			}
		}
	}
	return out
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
