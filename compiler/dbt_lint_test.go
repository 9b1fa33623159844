package compiler_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestDBTLintSameFindings: a model in a dbt project gets the findings the
// same model gets in a native project, at the same lines and columns of
// its .sql file (the config() block, like a header, keeps its lines).
func TestDBTLintSameFindings(t *testing.T) {
	body := `SELECT *, now() AS loaded_at
FROM {{ ref("raw") }}
WHERE status = 'ok'
LIMIT 10
`
	bodyAppend := "SELECT id FROM {{ ref(\"raw\") }}\n"
	native := map[string]string{
		"project.toml":   "name = \"p\"\ndefault_target = \"t\"\n[targets.t]\nengine = \"duckdb\"\npath = \"w.duckdb\"\n",
		"seeds/raw.csv":  "id,status\n1,ok\n",
		"models/inc.sql": "/* idemc\nmaterialized = \"incremental\"\nunique_key = \"id\"\n*/\n" + body,
		"models/app.sql": "/* idemc\nmaterialized = \"incremental\"\nstrategy = \"append\"\n*/\n" + bodyAppend,
	}
	dbt := map[string]string{
		"dbt_project.yml": "name: p\n",
		"profiles.yml":    "p:\n  target: t\n  outputs:\n    t:\n      type: duckdb\n      path: w.duckdb\n",
		"seeds/raw.csv":   "id,status\n1,ok\n",
		"models/inc.sql":  "{{ config(\n  materialized='incremental',\n  unique_key='id'\n) }}\n" + body,
		"models/app.sql":  "{{ config(\n  materialized='incremental'\n)\n}}\n" + bodyAppend,
	}
	got := map[string]string{}
	for name, files := range map[string]map[string]string{"native": native, "dbt": dbt} {
		dir := t.TempDir()
		for rel, text := range files {
			full := filepath.Join(dir, rel)
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
		pl, err := compiler.Compile(p, compiler.Options{LintOnly: true, NoUnits: true})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, f := range pl.Findings {
			fmt.Fprintf(&b, "%s:%d:%d %s %s\n", f.Path, f.Line, f.Col, f.Rule, f.Severity)
		}
		got[name] = b.String()
	}
	want := "models/app.sql:5:1 L004 error\nmodels/inc.sql:5:8 L007 warning\nmodels/inc.sql:5:11 L001 error\nmodels/inc.sql:8:1 L003 error\n"
	for name, g := range got {
		if g != want {
			t.Errorf("%s findings:\n%s\nwant:\n%s", name, g, want)
		}
	}
}
