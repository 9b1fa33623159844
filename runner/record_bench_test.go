package runner

import (
	"fmt"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// BenchmarkRecordRecipe is what having a unit's recipe written to
// target/compiled costs: making the text, and writing a new file (a first
// build) or finding an unchanged one (a rerun with nothing new). The run's
// writer does the file part off the units' path, while they run.
func BenchmarkRecordRecipe(b *testing.B) {
	ad, _ := adapters.Lookup("duckdb")
	w := fakeWrite("partition")
	steps := ad.Dialect.Recipe(w)
	for _, fresh := range []bool{true, false} {
		name := map[bool]string{true: "new", false: "unchanged"}[fresh]
		b.Run(name, func(b *testing.B) {
			r := &run{d: ad.Dialect, p: &project.Project{Root: b.TempDir()}}
			unit := func(i int) *plan.Unit {
				return &plan.Unit{ID: "m", Model: fmt.Sprint("m", i), Partition: "2026-07-01", Write: w}
			}
			if !fresh {
				for i := 0; i < b.N; i++ {
					r.recordRecipe(unit(i), w, steps)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				r.recordRecipe(unit(i), w, steps)
			}
		})
	}
}
