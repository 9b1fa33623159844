package runner

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/compiler/project"
)

// TestProjectHashDBT: a dbt project's run record hash covers
// dbt_project.yml and the properties files (it read project.toml only,
// which a dbt project does not have, so a changed test left it as it was).
func TestProjectHashDBT(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"dbt_project.yml": "name: p\n",
		"profiles.yml":    "p:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: w.duckdb\n",
		"models/a.sql":    "select 1 as a",
		"models/s.yml":    "models:\n  - name: a\n    columns:\n      - name: a\n        data_tests: [unique]\n",
	}
	write := func() {
		for rel, text := range files {
			full := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	hash := func() string {
		write()
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return projectHash(p)
	}
	before := hash()
	files["models/s.yml"] = "models:\n  - name: a\n    columns:\n      - name: a\n        data_tests: [unique, not_null]\n"
	if hash() == before {
		t.Error("changing a properties file's tests left the project hash as it was")
	}
	files["dbt_project.yml"] = "name: p\nvars:\n  x: 1\n"
	mid := hash()
	files["dbt_project.yml"] = "name: p\nvars:\n  x: 2\n"
	if hash() == mid {
		t.Error("changing dbt_project.yml left the project hash as it was")
	}
}
