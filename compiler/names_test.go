package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestNameLimits compiles one model whose name or column is at, and one
// past, each engine's limit (counted as the engine counts it).
func TestNameLimits(t *testing.T) {
	tests := []struct {
		engine  string
		model   string // file name without .sql
		column  string
		refused string // "" : compiles
	}{
		{"postgres", strings.Repeat("m", 63), "x", ""},
		{"postgres", strings.Repeat("m", 64), "x", `model name "` + strings.Repeat("m", 64) + `" is 64 bytes long, over postgres's limit of 63 bytes`},
		{"postgres", "m", strings.Repeat("é", 31) + "x", ""}, // 63 bytes
		{"postgres", "m", strings.Repeat("é", 32), `column "` + strings.Repeat("é", 32) + `" is 64 bytes long`},
		{"mysql", strings.Repeat("m", 64), "x", ""},
		{"mysql", "m", strings.Repeat("é", 64), ""}, // 128 bytes, 64 characters
		{"mysql", "m", strings.Repeat("é", 65), `is 65 characters long, over mysql's limit of 64 characters`},
		{"bigquery", "m", strings.Repeat("é", 300), ""},
		{"bigquery", "m", strings.Repeat("é", 301), `is 301 characters long, over bigquery's limit of 300 characters`},
		{"duckdb", strings.Repeat("m", 200), strings.Repeat("é", 400), ""},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		toml := "name = \"t\"\ndefault_target = \"t\"\n[targets.t]\nengine = \"" + tt.engine + "\"\nschema = \"s\"\n"
		if tt.engine == "bigquery" {
			toml += "project = \"p\"\ndataset = \"s\"\n"
		}
		files := map[string]string{
			"project.toml":                toml,
			"models/" + tt.model + ".sql": "SELECT 1 AS `" + tt.column + "`\n",
		}
		if tt.engine != "mysql" {
			files["models/"+tt.model+".sql"] = "SELECT 1 AS \"" + tt.column + "\"\n"
		}
		for name, text := range files {
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		_, err = compiler.Compile(p, compiler.Options{Models: true})
		switch {
		case tt.refused == "" && err != nil:
			t.Errorf("%s %d/%d: %v", tt.engine, len(tt.model), len(tt.column), err)
		case tt.refused != "" && (err == nil || !strings.Contains(err.Error(), tt.refused)):
			t.Errorf("%s %d/%d: err %v, want %q", tt.engine, len(tt.model), len(tt.column), err, tt.refused)
		}
	}
}
