package compiler_test

import (
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// goldenShapes are the write shapes the golden cases must show for every
// registered engine (issue 11: every strategy × engine). Removing the last
// case of a shape, or adding an engine without targets, fails
// TestGoldenCoverage.
var goldenShapes = []string{
	"view", "table", "seed",
	"incremental delete_insert day", "incremental delete_insert hour", "incremental delete_insert month",
	"incremental delete_insert by key",
	"incremental merge", "incremental merge update_columns", "incremental merge exclude_columns",
	"incremental insert_overwrite day", "incremental insert_overwrite hour", "incremental insert_overwrite month",
	"incremental append", "incremental append day",
	"incremental merge watermark",
	"full_refresh incremental delete_insert day", "full_refresh incremental merge",
	"error",
}

// shapeOf names a unit's write shape, as goldenShapes spells it.
func shapeOf(u *plan.Unit) string {
	if u.Seed {
		return "seed"
	}
	w := u.Write
	s := w.Materialized
	if w.Strategy != "" {
		s += " " + w.Strategy
	}
	switch {
	case w.Window != nil:
		s += " " + w.Window.Granularity
	case w.Strategy == "delete_insert":
		s += " by key"
	case len(w.UpdateColumns) > 0:
		s += " update_columns"
	case len(w.ExcludeColumns) > 0:
		s += " exclude_columns"
	case w.Watermark != nil:
		s += " watermark"
	}
	if w.FullRefresh {
		s = "full_refresh " + s
	}
	return s
}

func TestShapeOf(t *testing.T) {
	day := &plan.Window{Granularity: "day"}
	for _, tc := range []struct {
		unit plan.Unit
		want string
	}{
		{plan.Unit{Seed: true}, "seed"},
		{plan.Unit{Write: &plan.Write{Materialized: "view"}}, "view"},
		{plan.Unit{Write: &plan.Write{Materialized: "incremental", Strategy: "delete_insert", Window: day}}, "incremental delete_insert day"},
		{plan.Unit{Write: &plan.Write{Materialized: "incremental", Strategy: "delete_insert", UniqueKey: []string{"id"}}}, "incremental delete_insert by key"},
		{plan.Unit{Write: &plan.Write{Materialized: "incremental", Strategy: "merge", ExcludeColumns: []string{"a"}}}, "incremental merge exclude_columns"},
		{plan.Unit{Write: &plan.Write{Materialized: "incremental", Strategy: "merge", Watermark: &plan.WatermarkWrite{Column: "t"}}}, "incremental merge watermark"},
		{plan.Unit{Write: &plan.Write{Materialized: "incremental", Strategy: "merge", FullRefresh: true}}, "full_refresh incremental merge"},
	} {
		if got := shapeOf(&tc.unit); got != tc.want {
			t.Errorf("shapeOf(%+v) = %q, want %q", tc.unit.Write, got, tc.want)
		}
	}
}

// TestGoldenCoverage compiles every golden case and checks that each
// registered engine has every shape of goldenShapes among its goldens.
func TestGoldenCoverage(t *testing.T) {
	entries, err := os.ReadDir(goldenRoot)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]map[string]bool{} // engine → shapes
	loadErrors := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(goldenRoot, e.Name())
		gc := readCase(t, dir)
		p, err := project.Load(filepath.Join(dir, gc.Project))
		if err != nil {
			loadErrors++ // refused before any engine: the error shape of none
			continue
		}
		for name, tgt := range p.Targets {
			if seen[tgt.Engine] == nil {
				seen[tgt.Engine] = map[string]bool{}
			}
			pl, err := compiler.Compile(p, gc.options(t, name))
			if err != nil {
				seen[tgt.Engine]["error"] = true
				continue
			}
			for _, u := range pl.Units {
				seen[tgt.Engine][shapeOf(u)] = true
			}
		}
	}
	if loadErrors == 0 {
		t.Errorf("no golden case is refused at load (out/error.txt); add one under %s", goldenRoot)
	}
	for _, engine := range adapters.Names() {
		var missing []string
		for _, s := range goldenShapes {
			if !seen[engine][s] {
				missing = append(missing, s)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			t.Errorf("%s: no golden case shows %q; add a case under %s", engine, missing, goldenRoot)
		}
	}
}
