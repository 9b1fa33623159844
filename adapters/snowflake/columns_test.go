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

// TestTableModelColumnsPublishByName: a table model whose SELECT lists the
// table's columns in another order, or gains or drops one, is rebuilt with
// INSERT OVERWRITE naming the model's columns, each filled from the
// batch's column of that name, after the table's columns are synced (on a
// clone swapped in: CLONE, ADD/DROP COLUMN, SWAP WITH). By position, a
// reordered model's values would land in each other's columns while the
// audit said succeeded, and a changed column set failed every run.
func TestTableModelColumnsPublishByName(t *testing.T) {
	cases := []struct {
		name, sel string
		batch     []string
		want      []string // statements, in order, that must be sent
	}{
		{"reordered", "SELECT b, a", []string{"B", "A"},
			[]string{"INSERT OVERWRITE INTO \"ANALYTICS\".\"T\" (\"B\", \"A\")\nSELECT \"B\", \"A\" FROM ("}},
		{"gains a column", "SELECT a, b, c", []string{"A", "B", "C"},
			[]string{"CREATE OR REPLACE TABLE \"ANALYTICS\".\"T__IDEMC_NEW\" CLONE \"ANALYTICS\".\"T\"", "ALTER TABLE \"ANALYTICS\".\"T__IDEMC_NEW\" ADD COLUMN \"C\"",
				"INSERT OVERWRITE INTO \"ANALYTICS\".\"T__IDEMC_NEW\" (\"A\", \"B\", \"C\")\nSELECT \"A\", \"B\", \"C\" FROM (", "ALTER TABLE \"ANALYTICS\".\"T__IDEMC_NEW\" SWAP WITH \"ANALYTICS\".\"T\""}},
		{"drops a column", "SELECT b", []string{"B"},
			[]string{"ALTER TABLE \"ANALYTICS\".\"T__IDEMC_NEW\" DROP COLUMN \"A\"", "INSERT OVERWRITE INTO \"ANALYTICS\".\"T__IDEMC_NEW\" (\"B\")\nSELECT \"B\" FROM (",
				"ALTER TABLE \"ANALYTICS\".\"T__IDEMC_NEW\" SWAP WITH \"ANALYTICS\".\"T\""}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := tableOnFake(t, c.batch)
			res, out := buildTable(t, c.sel)
			if len(res.Units) != 1 || res.Units[0].Status != runner.StatusSucceeded {
				t.Fatalf("want the unit succeeded, got %+v\n%s", res.Units, out)
			}
			next := 0
			for _, s := range f.stmts {
				if next < len(c.want) && strings.HasPrefix(s.SQL, c.want[next]) {
					next++
				}
			}
			if next < len(c.want) {
				var sent []string
				for _, s := range f.stmts {
					sent = append(sent, s.SQL)
				}
				t.Fatalf("statement not sent (in order): %s\nsent:\n%s", c.want[next], strings.Join(sent, ";\n"))
			}
		})
	}
}

// tableOnFake makes the registered snowflake engine open a recording
// server where the table ANALYTICS.T has columns A and B (TEXT) and the
// model's SELECT describes as batch.
func tableOnFake(t *testing.T, batch []string) *fakeSnowflake {
	f := newFakeSnowflake(t)
	ad, _ := adapters.Lookup("snowflake")
	open := ad.Open
	ad.Open = func(ctx context.Context, _ map[string]string) (adapters.Engine, error) {
		return Open(ctx, f.settings())
	}
	t.Cleanup(func() { ad.Open = open })
	f.answer = func(q string) ([]string, [][]string, string) {
		switch {
		case strings.Contains(q, "idemc_describe"):
			return batch, nil, ""
		case strings.Contains(q, "information_schema.columns") && strings.Contains(q, "'T'"):
			return []string{"COLUMN_NAME", "TYPE"}, [][]string{{"A", "TEXT"}, {"B", "TEXT"}}, ""
		case strings.Contains(q, "information_schema.tables") && strings.Contains(q, "WHERE"):
			return []string{"TABLE_TYPE"}, [][]string{{"BASE TABLE"}}, ""
		case strings.Contains(q, "information_schema.tables"):
			return []string{"TABLE_SCHEMA", "TABLE_NAME", "TABLE_TYPE"}, [][]string{{"ANALYTICS", "T", "BASE TABLE"}}, ""
		}
		return nil, nil, ""
	}
	return f
}

// buildTable builds a project of one table model t selecting sel from a
// source.
func buildTable(t *testing.T, sel string) (*runner.Result, string) {
	dir := t.TempDir()
	files := map[string]string{
		"project.toml": "name = \"cols\"\ndefault_target = \"sf\"\n[targets.sf]\nengine = \"snowflake\"\naccount = \"a\"\nuser = \"u\"\npassword = \"p\"\nschema = \"analytics\"\n[sources.raw]\nschema = \"raw\"\ntables = [\"src\"]\n",
		"models/t.sql": "/* idemc\nmaterialized = \"table\"\n*/\n" + sel + " FROM {{ source(\"raw\", \"src\") }}",
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
	if err != nil {
		t.Fatalf("build: %v\n%s", err, out.String())
	}
	return res, out.String()
}
