package compiler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
)

// TestSeedHash: a seed's hash changes with its file and with the kinds its
// columns load as (column_types), and only then.
func TestSeedHash(t *testing.T) {
	data := []byte("id,zip\n1,12345\n")
	load := func(toml string) *project.Seed {
		t.Helper()
		dir := t.TempDir()
		files := map[string]string{
			"project.toml": "name = \"t\"\ndefault_target = \"l\"\n[targets.l]\nengine = \"duckdb\"\n" + toml,
			"seeds/s.csv":  string(data),
		}
		for name, text := range files {
			full := filepath.Join(dir, name)
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
		return p.Seed("s")
	}
	inferred := compiler.SeedHash(data, load(""))
	same := compiler.SeedHash(data, load("[seeds.s]\ncolumn_types = { id = \"bigint\" }\n"))
	declared := compiler.SeedHash(data, load("[seeds.s]\ncolumn_types = { zip = \"text\" }\n"))
	edited := compiler.SeedHash([]byte("id,zip\n1,12346\n"), load(""))
	if inferred != same {
		t.Errorf("declaring the kind a column is inferred as changed the hash")
	}
	if inferred == declared {
		t.Errorf("column_types zip = text did not change the hash")
	}
	if inferred == edited {
		t.Errorf("editing the file did not change the hash")
	}
	if len(inferred) != 16 {
		t.Errorf("hash %q", inferred)
	}
}

// TestSeedTypes is every engine's type for every seed kind.
func TestSeedTypes(t *testing.T) {
	want := map[string][]string{ // in the order of seed.Kinds
		"duckdb":    {"BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP", "VARCHAR"},
		"postgres":  {"bigint", "double precision", "boolean", "date", "timestamp without time zone", "text"},
		"mysql":     {"BIGINT", "DOUBLE", "BOOLEAN", "DATE", "DATETIME(6)", "TEXT"},
		"snowflake": {"BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP_NTZ", "VARCHAR"},
		"bigquery":  {"INT64", "FLOAT64", "BOOL", "DATE", "TIMESTAMP", "STRING"},
		"spark":     {"BIGINT", "DOUBLE", "BOOLEAN", "DATE", "TIMESTAMP", "STRING"},
	}
	for engine, types := range want {
		ad, ok := adapters.Lookup(engine)
		if !ok {
			t.Fatalf("%s is not registered", engine)
		}
		for i, k := range seed.Kinds {
			if got := ad.Dialect.SeedType(k); got != types[i] {
				t.Errorf("%s: %s is %s, want %s", engine, k, got, types[i])
			}
		}
	}
}
