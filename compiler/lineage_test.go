package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const lineageToml = "name = \"t\"\ndefault_target = \"t\"\n[targets.t]\nengine = \"duckdb\"\npath = \"w.duckdb\"\nschema = \"main\"\n"

const lineageModel = "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n*/\n" +
	"SELECT DATE '2026-07-01' AS d, 1 AS id\n"

// lineageUnit compiles the one model's unit of 2026-07-01 for a run.
func lineageUnit(t *testing.T, toml, runID string, asOf time.Time) *plan.Unit {
	t.Helper()
	p, err := project.Load(writeFiles(t, map[string]string{"project.toml": toml, "models/m.sql": lineageModel}))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := compiler.Compile(p, compiler.Options{Models: true, RunID: runID, AsOf: asOf, Partition: "2026-07-01"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Units) != 1 {
		t.Fatalf("%d units, want 1", len(pl.Units))
	}
	return pl.Units[0]
}

// TestLineageFingerprint: the run id and the logical time are literals of
// the lineage model's SQL, yet its code hash and input fingerprint do not
// change from run to run (every build would be stale); turning
// lineage_columns on or off changes them.
func TestLineageFingerprint(t *testing.T) {
	on := lineageToml + "[models]\nlineage_columns = true\n"
	a := lineageUnit(t, on, "run-a", time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC))
	b := lineageUnit(t, on, "run-b", time.Date(2026, 7, 9, 6, 0, 0, 0, time.UTC))
	off := lineageUnit(t, lineageToml, "run-a", time.Date(2026, 7, 2, 0, 0, 0, 0, time.UTC))
	for _, want := range []string{"CAST('run-a' AS VARCHAR) AS \"_idemc_run_id\"", "CAST(TIMESTAMP '2026-07-02 00:00:00' AS TIMESTAMP) AS \"_idemc_as_of\""} {
		if !strings.Contains(a.Write.Select, want) {
			t.Errorf("run a's SELECT lacks %s:\n%s", want, a.Write.Select)
		}
	}
	if !strings.Contains(b.Write.Select, "'run-b'") || strings.Contains(off.Write.Select, plan.LineageRunID) {
		t.Errorf("run b's SELECT:\n%s\nwithout lineage:\n%s", b.Write.Select, off.Write.Select)
	}
	if a.CodeHash != b.CodeHash || a.Inputs != b.Inputs {
		t.Errorf("another run changed the fingerprint: %s %s vs %s %s", a.CodeHash, a.Inputs, b.CodeHash, b.Inputs)
	}
	if a.CodeHash == off.CodeHash || a.Inputs == off.Inputs {
		t.Errorf("lineage_columns did not change the fingerprint: %s %s", a.CodeHash, a.Inputs)
	}
	if want := []string{"d", "id", plan.LineageRunID, plan.LineageAsOf}; strings.Join(a.Write.Columns, ",") != strings.Join(want, ",") {
		t.Errorf("columns %v, want %v", a.Write.Columns, want)
	}
}

// TestLineageReservedNames: a model's own column named like a lineage
// column is refused at its line, with or without lineage_columns.
func TestLineageReservedNames(t *testing.T) {
	for _, toml := range []string{lineageToml, lineageToml + "[models]\nlineage_columns = true\n"} {
		p, err := project.Load(writeFiles(t, map[string]string{"project.toml": toml,
			"models/m.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS id,\n  'x' AS _IDEMC_RUN_ID\n"}))
		if err != nil {
			t.Fatal(err)
		}
		_, err = compiler.Compile(p, compiler.Options{Models: true})
		want := `models/m.sql:5: column "_idemc_run_id" is a name idemc reserves for the row lineage columns`
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want %s", err, want)
		}
	}
}

// TestLineageStarOverLineage: a lineage model reading another with SELECT *
// would write the lineage columns twice: refused at the star's line; with
// lineage off it passes the upstream's stamps on.
func TestLineageStarOverLineage(t *testing.T) {
	files := func(toml string) map[string]string {
		return map[string]string{"project.toml": toml,
			"models/a.sql": "/* idemc\nmaterialized = \"table\"\nlineage_columns = true\n*/\nSELECT 1 AS id\n",
			"models/b.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT\n  *\nFROM {{ ref(\"a\") }}\n"}
	}
	p, err := project.Load(writeFiles(t, files(lineageToml+"[models]\nlineage_columns = true\n")))
	if err != nil {
		t.Fatal(err)
	}
	_, err = compiler.Compile(p, compiler.Options{Models: true})
	want := "models/b.sql:5: SELECT * reads the lineage columns of a, which this model's lineage_columns writes too"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want %s", err, want)
	}
	if p, err = project.Load(writeFiles(t, files(lineageToml))); err != nil {
		t.Fatal(err)
	}
	if _, err = compiler.Compile(p, compiler.Options{Models: true}); err != nil {
		t.Errorf("b without lineage: %v", err)
	}
}
