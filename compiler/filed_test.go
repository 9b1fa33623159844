package compiler_test

import (
	"sync"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// TestFiled: Options.Filed gets every unit with its recipe, once, and the
// plan keeps only the number of steps; a plan with an error files nothing
// (bad input writes nothing), though units were planned before the error.
func TestFiled(t *testing.T) {
	dir := writeFiles(t, map[string]string{
		"project.toml":   lineageToml,
		"models/src.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT DATE '2026-07-01' AS d, 1 AS x\n",
		"models/daily.sql": "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n*/\n" +
			"SELECT d, x FROM {{ ref(\"src\") }} WHERE d >= {{ start }} AND d < {{ end }}\n",
	})
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	asOf := time.Date(2026, 7, 3, 0, 0, 0, 0, time.UTC)
	compile := func(partition string, filed func(*plan.Unit) bool) (*plan.Plan, error) {
		return compiler.Compile(p, compiler.Options{Models: true, AsOf: asOf, Partition: partition, Filed: filed})
	}
	want, err := compile("2026-07-02", nil)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	steps := map[string]int{}
	got, err := compile("2026-07-02", func(u *plan.Unit) bool {
		mu.Lock()
		defer mu.Unlock()
		if _, again := steps[u.ID]; again || len(u.Steps) == 0 {
			t.Errorf("%s filed again or without its recipe (%d steps)", u.ID, len(u.Steps))
		}
		steps[u.ID] = len(u.Steps)
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Units) != 2 || len(steps) != len(got.Units) {
		t.Fatalf("%d units, %d filed; want 2 and 2", len(got.Units), len(steps))
	}
	for i, u := range got.Units {
		if u.Steps != nil || u.StepCount() != steps[u.ID] || u.StepCount() != want.Units[i].StepCount() {
			t.Errorf("%s: %d steps kept, %d counted, %d filed, %d without Filed", u.ID, len(u.Steps), u.StepCount(), steps[u.ID], want.Units[i].StepCount())
		}
	}

	// 2026-06-30 is before daily's start: an error, after src's unit.
	bad, err := compile("2026-06-30", func(u *plan.Unit) bool {
		t.Errorf("%s filed from a plan with an error", u.ID)
		return true
	})
	if err == nil || bad == nil || len(bad.Units) == 0 {
		t.Fatalf("want an error after a unit was planned; got %v and plan %v", err, bad)
	}
}
