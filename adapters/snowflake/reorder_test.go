package snowflake

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// TestReorderedTableModelPublishesByName: a table model whose SELECT now
// lists the table's columns in another order is rebuilt with INSERT
// OVERWRITE naming the columns, each filled from the batch's column of
// that name (by position, b's values would land in a and a's in b while
// the audit said succeeded).
func TestReorderedTableModelPublishesByName(t *testing.T) {
	f := newFakeSnowflake(t)
	ad, _ := adapters.Lookup("snowflake")
	open := ad.Open
	ad.Open = func(ctx context.Context, _ map[string]string) (adapters.Engine, error) {
		return Open(ctx, f.settings())
	}
	t.Cleanup(func() { ad.Open = open })
	f.answer = func(q string) ([]string, [][]string, string) {
		switch {
		case strings.Contains(q, "idemc_describe"): // the batch, in the model's new order
			return []string{"B", "A"}, nil, ""
		case strings.Contains(q, "information_schema.columns") && strings.Contains(q, "'T'"): // the table as it is
			return []string{"COLUMN_NAME", "TYPE"}, [][]string{{"A", "TEXT"}, {"B", "TEXT"}}, ""
		case strings.Contains(q, "information_schema.tables") && strings.Contains(q, "table_type"):
			return []string{"TABLE_TYPE"}, [][]string{{"BASE TABLE"}}, ""
		case strings.Contains(q, "information_schema.tables"):
			return []string{"TABLE_SCHEMA", "TABLE_NAME"}, [][]string{{"ANALYTICS", "T"}}, ""
		}
		return nil, nil, ""
	}
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": "name = \"reorder\"\ndefault_target = \"sf\"\n[targets.sf]\nengine = \"snowflake\"\naccount = \"a\"\nuser = \"u\"\npassword = \"p\"\nschema = \"analytics\"\n[sources.raw]\nschema = \"raw\"\ntables = [\"src\"]\n",
		"models/t.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT b, a FROM {{ source(\"raw\", \"src\") }}",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := project.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	res, err := runner.Build(context.Background(), p, runner.Options{Out: &out, Compile: compiler.Options{Models: true}})
	if err != nil || len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
		t.Fatalf("want the unit succeeded, got %+v (%v)\n%s", res.Units, err, out.String())
	}
	var publish string
	for _, s := range f.stmts {
		if strings.HasPrefix(s.SQL, "INSERT OVERWRITE INTO") {
			publish = s.SQL
		}
	}
	want := "INSERT OVERWRITE INTO \"ANALYTICS\".\"T\" (\"B\", \"A\")\nSELECT \"B\", \"A\" FROM ("
	if !strings.HasPrefix(publish, want) {
		t.Fatalf("the rebuild does not fill the columns by name:\n%s\nwant it to start with\n%s", publish, want)
	}
}
