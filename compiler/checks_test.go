package compiler_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	_ "github.com/idemc/idemc/adapters/duckdb"
	"github.com/idemc/idemc/plan"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestCheckRelations: the relation a check reads is resolved for the
// target — a model in its own schema, a seed in the seed schema, a source
// table with its database — and a model or seed it reads becomes upstream
// of the checked model (a source does not).
func TestCheckRelations(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"project.toml": "name = \"t\"\ndefault_target = \"t\"\n[targets.t]\nengine = \"duckdb\"\nschema = \"main\"\n" +
			"[seeds]\nschema = \"raw_seeds\"\n[sources.raw]\nschema = \"raw\"\ndatabase = \"lake\"\ntables = [\"ev\"]\n",
		"seeds/users.csv": "id\n1\n",
		"models/dim.sql":  "/* idemc\nschema = \"marts\"\nalias = \"dim_v2\"\n*/\nSELECT 1 AS id\n",
		"models/fact.sql": `/* idemc
materialized = "incremental"
partition_by = "d"
start = "2026-07-01"
[checks]
relationships = { id = "dim.id", u = "users.id", e = "raw.ev.id" }
row_count_matches = { source = "raw.ev" }
min_rows = 1
*/
SELECT DATE '2026-07-01' AS d, 1 AS id, 1 AS u, 1 AS e
`,
	} {
		full := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := compiler.Compile(p, compiler.Options{Models: true})
	if err != nil {
		t.Fatal(err)
	}
	lake := plan.Relation{Database: "lake", Schema: "raw", Name: "ev"}
	want := []plan.Check{
		{Name: "min_rows(1)", Kind: "min_rows", Severity: "error", MinRows: 1},
		{Name: "relationships(e -> raw.ev.id)", Kind: "relationships", Severity: "error", Columns: []string{"e"}, To: lake, ToColumn: "id"},
		{Name: "relationships(id -> dim.id)", Kind: "relationships", Severity: "error", Columns: []string{"id"}, To: plan.Relation{Schema: "marts", Name: "dim_v2"}, ToColumn: "id"},
		{Name: "relationships(u -> users.id)", Kind: "relationships", Severity: "error", Columns: []string{"u"}, To: plan.Relation{Schema: "raw_seeds", Name: "users"}, ToColumn: "id"},
		{Name: "row_count_matches(raw.ev)", Kind: "row_count_matches", Severity: "error", Source: lake, SourceColumn: "d"},
	}
	var got []plan.Check
	for _, c := range pl.Nodes["fact"].Checks {
		got = append(got, *c)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("checks of fact\n got %+v\nwant %+v", got, want)
	}
	if up := pl.Graph.Upstream("fact"); !reflect.DeepEqual(up, []string{"dim", "users"}) {
		t.Errorf("upstream of fact = %v, want [dim users]", up)
	}
}
