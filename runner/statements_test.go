package runner_test

import (
	"context"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// TestTableUnitStatementsDuckDB counts the statements of a forced table
// unit on DuckDB (issue 18, item 3): BEGIN, the rebuild (whose answer is
// its row count), the audit and latest updates, COMMIT — five, and no
// count(*). It fails when a statement is added back to the unit.
func TestTableUnitStatementsDuckDB(t *testing.T) {
	dir := writeProject(t, map[string]string{"tot": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3"})
	build(t, dir, compiler.Options{}, 1)
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var tr strings.Builder
	res, err := runner.Build(context.Background(), p, runner.Options{Compile: compiler.Options{Models: true, FullRefresh: true}, Threads: 1, Trace: &tr, Out: &strings.Builder{}})
	if err != nil || !res.OK() || len(res.Units) != 1 || res.Units[0].Rows != 3 {
		t.Fatalf("build: %v %+v", err, res)
	}
	var unit []string
	for _, l := range strings.Split(tr.String(), "\n") {
		if strings.HasPrefix(l, "trace tot ") {
			unit = append(unit, l)
		}
	}
	// The claim (running rows of the roots: BEGIN, two INSERTs, COMMIT)
	// is traced under the unit that made it; the unit's own statements
	// follow, after the run's one kind listing.
	own := 0
	for _, l := range unit {
		if strings.Contains(l, "count(*)") {
			t.Errorf("the table unit counted its rows after the rebuild:\n%s", l)
		}
		if strings.Contains(l, "UPDATE") && strings.Contains(l, "idemc_audit") && !strings.Contains(l, "row_count = 3") {
			t.Errorf("the audit row does not record 3 rows:\n%s", l)
		}
		if !strings.Contains(l, "INSERT INTO") && !strings.Contains(l, "information_schema") {
			own++
		}
	}
	// BEGIN+COMMIT of the claim, then BEGIN, CREATE, UPDATE ×2, COMMIT.
	if own != 7 {
		t.Errorf("%d statements in the table unit (claim's BEGIN/COMMIT included), want 7:\n%s", own, strings.Join(unit, "\n"))
	}
}
