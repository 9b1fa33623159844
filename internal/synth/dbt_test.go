package synth

import (
	"testing"

	_ "github.com/idemc/idemc/adapters/duckdb/dialect"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestDBTFormatCompiles: the dbt-format copy of a project loads as a dbt
// project with the same models and compiles without findings, like the
// native one.
func TestDBTFormatCompiles(t *testing.T) {
	native, dbt := t.TempDir(), t.TempDir()
	if err := Write(native, 200, 1); err != nil {
		t.Fatal(err)
	}
	if err := WriteDBT(dbt, 200, 1); err != nil {
		t.Fatal(err)
	}
	pn, err := project.Load(native)
	if err != nil {
		t.Fatal(err)
	}
	pd, err := project.Load(dbt)
	if err != nil {
		t.Fatal(err)
	}
	if !pd.DBT || len(pd.Models) != len(pn.Models) {
		t.Fatalf("dbt format: DBT=%v, %d models, native %d", pd.DBT, len(pd.Models), len(pn.Models))
	}
	for i, m := range pd.Models {
		n := pn.Models[i]
		if m.Name != n.Name || m.Config.Materialized != n.Config.Materialized || m.Strategy != n.Strategy || m.Config.PartitionBy != n.Config.PartitionBy {
			t.Errorf("%s: dbt %s/%s/%s, native %s/%s/%s", m.Name, m.Config.Materialized, m.Strategy, m.Config.PartitionBy, n.Config.Materialized, n.Strategy, n.Config.PartitionBy)
		}
	}
	pl, err := compiler.Compile(pd, compiler.Options{Partition: Partition, Models: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.Findings) > 0 {
		t.Errorf("%d findings, first %v", len(pl.Findings), pl.Findings[0])
	}
}
