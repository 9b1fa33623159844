package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
)

// TestProjectHashFromLoad: the run record's project hash taken from the
// models' load-time file hashes (fresh load, then the load cache's) is the
// hash of reading every file, and an edited model changes it.
func TestProjectHashFromLoad(t *testing.T) {
	dir := testtree.Write(t, map[string]string{
		"project.toml":  "name = \"h\"\ndefault_target = \"local\"\n[targets.local]\nengine = \"duckdb\"\npath = \"target/w.duckdb\"\nschema = \"main\"\n",
		"models/a.sql":  "SELECT 1 AS x",
		"models/b.sql":  "SELECT x FROM {{ ref('a') }}",
		"macros/m.sql":  "{% macro m() %}1{% endmacro %}",
		"seeds/s.csv":   "id\n1\n",
		"tests/t_a.sql": "SELECT * FROM {{ ref('a') }} WHERE x IS NULL",
	})
	cache := filepath.Join(dir, "target")
	load := func() *project.Project {
		p, err := project.LoadCached(dir, cache)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	fromFiles := func(p *project.Project) string {
		c := *p
		c.Models = nil
		for _, m := range p.Models {
			mc := *m
			mc.FileSum = [32]byte{}
			c.Models = append(c.Models, &mc)
		}
		return projectHash(&c)
	}
	fresh, cached := load(), load()
	want := fromFiles(fresh)
	for name, p := range map[string]*project.Project{"fresh": fresh, "cached": cached} {
		if p.Models[0].FileSum == ([32]byte{}) {
			t.Errorf("%s load: model a has no file hash", name)
		}
		if got := projectHash(p); got != want {
			t.Errorf("%s load: project hash %s, reading the files gives %s", name, got, want)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "models/a.sql"), []byte("SELECT 2 AS x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if edited := load(); projectHash(edited) == want || projectHash(edited) != fromFiles(edited) {
		t.Errorf("an edited model: hash %s (before %s, from files %s)", projectHash(edited), want, fromFiles(edited))
	}
}
