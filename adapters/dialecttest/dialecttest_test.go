package dialecttest

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

var (
	errCheck = &plan.Check{Name: "not_null(id)", Kind: plan.CheckNotNull, Severity: "error"}
	keyCheck = &plan.Check{Name: "batch_unique_key(id)", Kind: plan.CheckBatchKeys, Severity: "error"}
	txn      = adapters.Capabilities{TransactionalDDL: true, ChecksInWrite: true, Merge: true}
	locking  = adapters.Capabilities{TransactionalDDL: false, TempTableInTransaction: true, ChecksInWrite: true, UnitLock: true}
	noTxDDL  = adapters.Capabilities{ChecksInWrite: true, TableInPlace: true}
	spark    = adapters.Capabilities{}
)

func st(p plan.Purpose, sql string) plan.Step { return plan.Step{Purpose: p, SQL: sql} }

func check(p plan.Purpose, c *plan.Check) plan.Step {
	return plan.Step{Purpose: p, SQL: "SELECT 1", Check: c}
}

// good is a correct one-transaction recipe of a keyed write on an engine
// that locks units and stages in a temporary table (MySQL's shape).
func good() []plan.Step {
	return []plan.Step{
		st(plan.Prepare, "CREATE TABLE IF NOT EXISTS d AS SELECT 1"),
		st(plan.AuditStart, "INSERT INTO audit"),
		st(plan.Begin, "START TRANSACTION"),
		st(plan.Lock, "SELECT GET_LOCK('d', 600)"),
		st(plan.Stage, "CREATE TEMPORARY TABLE s AS SELECT 1"),
		check(plan.Validate, keyCheck),
		st(plan.Delete, "DELETE FROM d"),
		st(plan.Insert, "INSERT INTO d SELECT * FROM s"),
		check(plan.CheckStep, errCheck),
		st(plan.AuditFinish, "UPDATE audit"),
		st(plan.Cleanup, "DROP TEMPORARY TABLE IF EXISTS s"),
		st(plan.Commit, "COMMIT"),
	}
}

// move returns steps with the step at from moved to index to.
func move(steps []plan.Step, from, to int) []plan.Step {
	s := steps[from]
	out := slices.Delete(slices.Clone(steps), from, from+1)
	return slices.Insert(out, to, s)
}

// TestCheckRecipeFails feeds CheckRecipe a correct recipe and deliberately
// wrong ones: each assertion must name what is wrong.
func TestCheckRecipeFails(t *testing.T) {
	keyed := &plan.Write{Materialized: plan.Incremental, Strategy: "delete_insert", UniqueKey: []string{"id"}}
	table := &plan.Write{Materialized: plan.Table}
	view := &plan.Write{Materialized: plan.View}
	g := good()
	for _, tc := range []struct {
		name  string
		caps  adapters.Capabilities
		w     *plan.Write
		steps []plan.Step
		want  string // "" for a correct recipe
	}{
		{"a correct transaction", locking, keyed, g, ""},
		{"a correct transaction, DDL inside where it is transactional", txn, keyed, slices.Insert(slices.Clone(g), 4, st(plan.Stage, "CREATE TEMP TABLE x AS SELECT 1")), ""},
		{"two audit starts", locking, keyed, slices.Insert(slices.Clone(g), 1, st(plan.AuditStart, "INSERT INTO audit")), "2 audit_start and 1 audit_finish"},
		{"no audit finish", locking, keyed, slices.Delete(slices.Clone(g), 9, 10), "1 audit_start and 0 audit_finish"},
		{"commit before the audit finish", locking, keyed, move(g, 9, 11), "audit_finish (step 11) after commit (step 10)"},
		{"validate after the first write", locking, keyed, move(g, 5, 7), "validate step 7 after the first write (step 5)"},
		{"no lock", locking, keyed, slices.Delete(slices.Clone(g), 3, 4), "no lock step before the first write"},
		{"lock after the write", locking, keyed, move(g, 3, 7), "no lock step before the first write"},
		{"error check after commit", locking, keyed, move(g, 8, 11), `error check "not_null(id)" (step 11) outside the transaction`},
		{"write outside the transaction", locking, keyed, move(g, 7, 1), "outside the transaction"},
		{"no commit", locking, keyed, slices.Delete(slices.Clone(g), 11, 12), "1 begin and 0 commit steps"},
		{"DDL inside a transaction it would commit", locking, keyed, slices.Insert(slices.Clone(g), 7, st(plan.Stage, "/* idemc: job=stage */\nCREATE TABLE x AS SELECT 1")), "DDL inside the transaction, which it would commit (step 7: /* idemc: job=stage */)"},
		{"a temporary stage inside, where temporary DDL commits", noTxDDL, keyed, g, "DDL inside the transaction, which it would commit (step 4: CREATE TEMPORARY TABLE"},
		{"verify, then publish: check after the publish", spark, table, []plan.Step{
			st(plan.AuditStart, "INSERT"), st(plan.Stage, "CREATE OR REPLACE TABLE s AS SELECT 1"),
			st(plan.Publish, "CREATE OR REPLACE TABLE d AS SELECT * FROM s"), check(plan.CheckStep, errCheck), st(plan.AuditFinish, "UPDATE"),
		}, `error check "not_null(id)" (step 3) after the first write (step 2)`},
		{"publish, then check: a transaction around the view", noTxDDL, view, []plan.Step{
			st(plan.AuditStart, "INSERT"), st(plan.Begin, "BEGIN"), st(plan.Publish, "CREATE OR REPLACE VIEW v AS SELECT 1"),
			check(plan.CheckStep, errCheck), st(plan.AuditFinish, "UPDATE"), st(plan.Commit, "COMMIT"),
		}, "a transaction around DDL that commits on its own"},
		{"publish, then check: check before the publish", noTxDDL, view, []plan.Step{
			st(plan.AuditStart, "INSERT"), check(plan.CheckStep, errCheck), st(plan.Publish, "CREATE OR REPLACE VIEW v AS SELECT 1"), st(plan.AuditFinish, "UPDATE"),
		}, `check "not_null(id)" (step 1) before the view is published`},
	} {
		got := strings.Join(CheckRecipe(tc.caps, tc.w, tc.steps), "\n")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: a correct recipe is refused:\n%s", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s:\n got %q\nwant it to say %q", tc.name, got, tc.want)
		}
	}
}

// TestWritesCoverShapes: the table of writes reaches every shape on the
// engines' capabilities, so CheckEngine checks each.
func TestWritesCoverShapes(t *testing.T) {
	seen := map[adapters.Shape]bool{}
	for _, caps := range []adapters.Capabilities{txn, noTxDDL, spark, {ChecksInWrite: true, Script: true, PartitionOverwrite: true}} {
		for _, c := range Writes() {
			seen[caps.ShapeOf(c.Write)] = true
		}
	}
	for _, s := range []adapters.Shape{adapters.OneTransaction, adapters.OneScript, adapters.VerifyThenPublish, adapters.PublishThenCheck} {
		if !seen[s] {
			t.Errorf("no write of the table has the shape %q", s)
		}
	}
}

// TestGoldenUpdate: a missing or different file fails; -update writes it;
// a second -update changes nothing; then the comparison passes.
func TestGoldenUpdate(t *testing.T) {
	path := t.TempDir() + "/g/x.sql"
	if err := golden(path, "a\n", false); err == nil || !strings.Contains(err.Error(), "is missing") {
		t.Fatalf("a missing golden: %v", err)
	}
	if err := golden(path, "a\n", true); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC) // a rewrite would move it
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	if err := golden(path, "a\n", true); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !after.ModTime().Equal(old) {
		t.Error("a second -update rewrote an unchanged file")
	}
	if err := golden(path, "a\n", false); err != nil {
		t.Errorf("after -update: %v", err)
	}
	if err := golden(path, "b\n", false); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("a changed output: %v", err)
	}
}

// swapped is a correct recipe of a column change on a copy swapped in, on
// an engine whose DDL commits on its own: the copy outside any
// transaction, the write and checks on it, the swap, the audit row after.
func swapped() []plan.Step {
	return []plan.Step{
		st(plan.AuditStart, "INSERT INTO audit"),
		st(plan.SchemaStep, "DROP TABLE IF EXISTS d_old"),
		st(plan.SchemaStep, "CREATE TABLE d_new LIKE d"),
		st(plan.Begin, "BEGIN"),
		st(plan.Delete, "DELETE FROM d_new"),
		st(plan.Insert, "INSERT INTO d_new SELECT 1"),
		check(plan.Validate, keyCheck),
		check(plan.CheckStep, errCheck),
		st(plan.Commit, "COMMIT"),
		st(plan.Publish, "RENAME TABLE d TO d_old, d_new TO d"),
		st(plan.Cleanup, "DROP TABLE IF EXISTS d_old"),
		st(plan.Begin, "BEGIN"),
		st(plan.AuditFinish, "UPDATE audit"),
		st(plan.Commit, "COMMIT"),
	}
}

// TestCheckComposedFails feeds CheckComposed correct composed recipes and
// deliberately wrong ones: each must be named.
func TestCheckComposedFails(t *testing.T) {
	swap := []string{"RENAME TABLE d TO d_old, d_new TO d"}
	s := swapped()
	inTx := []plan.Step{
		st(plan.AuditStart, "INSERT INTO audit"), st(plan.Begin, "BEGIN"), st(plan.Lock, "SELECT pg_advisory_xact_lock(1)"),
		st(plan.SchemaStep, "ALTER TABLE d ADD COLUMN n int"), st(plan.Insert, "INSERT INTO d SELECT 1"),
		check(plan.CheckStep, errCheck), st(plan.AuditFinish, "UPDATE audit"), st(plan.Commit, "COMMIT"),
	}
	for _, tc := range []struct {
		name  string
		caps  adapters.Capabilities
		steps []plan.Step
		swap  []string
		want  string
	}{
		{"a correct swap", noTxDDL, s, swap, ""},
		{"a correct change in the transaction", txn, inTx, nil, ""},
		{"the copy's DDL inside a transaction", noTxDDL, move(s, 3, 1), swap, "DDL inside the transaction opened at step 1, which it would commit (step 2: DROP TABLE IF EXISTS d_old)"},
		{"the swap before the checks", noTxDDL, move(s, 9, 6), swap, `check "batch_unique_key(id)" (step 7) after the swap (step 6)`},
		{"the audit row before the swap", noTxDDL, move(s, 12, 8), swap, "bookkeeping step 8 (audit_finish) before the swap (step 10)"},
		{"no swap", noTxDDL, slices.Delete(slices.Clone(s), 9, 10), swap, "is not among the steps"},
		{"two audit rows", noTxDDL, slices.Insert(slices.Clone(s), 0, st(plan.AuditStart, "INSERT")), swap, "2 audit_start and 1 audit_finish"},
		{"a schema step after the write", txn, move(inTx, 3, 5), nil, "schema step 5 outside the transaction or after the first write (step 3)"},
		{"a schema step before BEGIN", txn, move(inTx, 3, 1), nil, "schema step 1 outside the transaction"},
	} {
		got := strings.Join(CheckComposed(tc.caps, tc.steps, tc.swap), "\n")
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%s: a correct recipe is refused:\n%s", tc.name, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%s:\n got %q\nwant it to say %q", tc.name, got, tc.want)
		}
	}
}
