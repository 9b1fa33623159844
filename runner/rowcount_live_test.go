package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/runner"
)

// TestTableRowCountFromInsertLive: a table model's row count is what its
// rebuilding INSERT reported, not a count(*) after it (issue 18: one
// round trip less per unit), and the audit row records it. Live
// PostgreSQL (MariaDB builds a table aside with CREATE TABLE … AS, which
// reports no rows, and keeps its count); skipped when the server is not
// configured unless IDEMC_REQUIRE_LIVE=1.
func TestTableRowCountFromInsertLive(t *testing.T) {
	for _, eng := range []struct{ name, env, dsn string }{
		{"postgres", "IDEMC_PG_DSN", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"},
	} {
		t.Run(eng.name, func(t *testing.T) {
			if os.Getenv(eng.env) == "" && os.Getenv("IDEMC_REQUIRE_LIVE") != "1" {
				t.Skipf("%s not set", eng.env)
			}
			schema := "idemc_rowcount_" + eng.name
			_, dsn, _ := liveSchema(t, eng.name, eng.env, eng.dsn, schema)
			dir := writeProject(t, map[string]string{"tot": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3"})
			toml := fmt.Sprintf("name = \"rc\"\ndefault_target = \"live\"\n[targets.live]\nengine = %q\ndsn = %q\nschema = %q\n", eng.name, dsn, schema)
			if err := os.WriteFile(filepath.Join(dir, "project.toml"), []byte(toml), 0o644); err != nil {
				t.Fatal(err)
			}
			p, err := project.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			var tr strings.Builder
			res, err := runner.Build(context.Background(), p, runner.Options{Compile: compiler.Options{Models: true}, Threads: 1, Trace: &tr, Out: &strings.Builder{}})
			if err != nil || !res.OK() || len(res.Units) != 1 {
				t.Fatalf("build: %v %+v", err, res)
			}
			if res.Units[0].Rows != 3 {
				t.Errorf("rows %d, want 3", res.Units[0].Rows)
			}
			for _, l := range strings.Split(tr.String(), "\n") {
				if strings.HasPrefix(l, "trace tot") && strings.Contains(l, "SELECT count(*) FROM") {
					t.Errorf("the table unit counted its rows after the insert:\n%s", l)
				}
				if strings.HasPrefix(l, "trace tot") && strings.Contains(l, "UPDATE") && strings.Contains(l, "idemc_audit") && !strings.Contains(l, "row_count = 3") {
					t.Errorf("the audit row does not record 3 rows:\n%s", l)
				}
			}
		})
	}
}
