package bigquery

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// TestLineageScriptCarriesTheRun: with lineage_columns the unit's one
// script job writes the batch with the run's id and logical time as
// literals, the same run id its audit rows record. (The fake describes
// every batch with fixed columns, so the INSERT's column list is not the
// lineage batch's here; the goldens show it.)
func TestLineageScriptCarriesTheRun(t *testing.T) {
	f := newFakeBigQuery(t)
	onFake(t, f)
	p := auditProject(t)
	model := filepath.Join(p.Root, "models", "events_daily.sql")
	b, err := os.ReadFile(model)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(model, []byte(strings.Replace(string(b), "[checks]", "lineage_columns = true\n[checks]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if p, err = project.Load(p.Root); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	at := time.Date(2026, 7, 3, 6, 0, 0, 0, time.UTC)
	res, err := runner.Build(context.Background(), p, runner.Options{Out: &out,
		Compile: compiler.Options{AsOf: at, Start: "2026-07-02", End: "2026-07-03", Models: true}})
	if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
		t.Fatalf("want the unit succeeded, got %+v (%v)\n%s", res.Units, err, out.String())
	}
	stamp := "CAST('" + res.RunID + "' AS STRING) AS `_idemc_run_id`, CAST(TIMESTAMP '2026-07-03 06:00:00' AS TIMESTAMP) AS `_idemc_as_of`"
	var script, audit string
	for _, j := range f.submitted() {
		switch {
		case strings.HasPrefix(j.SQL, "BEGIN TRANSACTION"):
			script = j.SQL
		case strings.HasPrefix(j.SQL, "INSERT INTO `analytics`.`idemc_audit`"):
			audit = j.SQL
		}
	}
	if !strings.Contains(script, stamp) {
		t.Errorf("the script does not write the lineage columns, want %s:\n%s", stamp, script)
	}
	if !strings.Contains(audit, "'"+res.RunID+"'") {
		t.Errorf("the audit row is not the run's:\n%s", audit)
	}
}
