package notify_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/testtree"
	"github.com/idemc/idemc/notify"
	"github.com/idemc/idemc/plan"
	"github.com/idemc/idemc/runner"
)

// driftSource is ten rows a day for six days; cut leaves three on
// 2026-07-05 and none on 2026-07-06.
func driftSource(cut bool) string {
	q := `SELECT d, i FROM (SELECT DATE '2026-07-01' AS d UNION ALL SELECT DATE '2026-07-02' UNION ALL SELECT DATE '2026-07-03'
  UNION ALL SELECT DATE '2026-07-04' UNION ALL SELECT DATE '2026-07-05' UNION ALL SELECT DATE '2026-07-06') AS days
CROSS JOIN (SELECT 0 AS i UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4
  UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9) AS r
`
	if cut {
		q += "WHERE NOT (d = DATE '2026-07-05' AND i >= 3) AND d <> DATE '2026-07-06'\n"
	}
	return q
}

// TestNotifyDrift: an error drift rolls its partition back (its previous
// rows stay) and is a unit_failed event; a warned drift commits and is
// one drift event, delivered once; a second pass sends nothing. On
// DuckDB, and on PostgreSQL and MariaDB when their servers run.
func TestNotifyDrift(t *testing.T) {
	for _, tc := range []struct{ target, env string }{{"local", ""}, {"pg", "IDEMC_PG_DSN"}, {"mysql", "IDEMC_MYSQL_DSN"}} {
		t.Run(tc.target, func(t *testing.T) {
			if tc.env != "" && os.Getenv(tc.env) == "" {
				if os.Getenv("IDEMC_REQUIRE_LIVE") != "" {
					t.Fatalf("%s is not set and IDEMC_REQUIRE_LIVE is: start the server with scripts/services.sh", tc.env)
				}
				t.Skipf("%s not set: run scripts/services.sh for the live test", tc.env)
			}
			schema := "notify_drift_" + strings.ReplaceAll(time.Now().Format("150405.000000"), ".", "")
			t.Setenv("NOTIFY_SCHEMA", schema)
			if tc.env != "" {
				defer dropSchema(t, tc.target, schema)
			}
			notifyDrift(t, tc.target)
		})
	}
}

func notifyDrift(t *testing.T, target string) {
	t.Setenv("HOOK_TOKEN", "s3cret")
	rc := newReceiver(t)
	files := projectFiles(target, rc.srv.URL)
	files["project.toml"] = strings.Replace(files["project.toml"], `name = "ready"
on = "partition_succeeded"`, `name = "drifted"
on = "drift"`, 1)
	delete(files, "models/bad.sql")
	files["models/src.sql"] = driftSource(false)
	files["models/daily.sql"] = "/* idemc\nmaterialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n[drift]\nzero_rows = \"error\"\nrow_count = {}\n*/\nSELECT d, i FROM {{ ref(\"src\") }} WHERE d >= {{ start }} AND d < {{ end }}\n"
	dir := testtree.Write(t, files)
	load := func() *project.Project {
		p, err := project.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p := load()
	o := notify.Options{RetryBase: time.Millisecond}
	build(t, p, "2026-07-07T00:00:00Z", compiler.Options{})
	if s := pass(t, p, o); s.Created != 0 {
		t.Fatalf("events before any drift: %+v", s)
	}
	if err := os.WriteFile(filepath.Join(dir, "models", "src.sql"), []byte(driftSource(true)), 0o644); err != nil {
		t.Fatal(err)
	}
	p = load()
	at, _ := time.Parse(time.RFC3339, "2026-07-07T00:00:00Z")
	res, err := runner.Build(context.Background(), p, runner.Options{Compile: compiler.Options{Models: true, AsOf: at}})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range res.Units {
		got[u.ID] = string(u.Status)
		if len(u.Checks) > 0 && u.Checks[len(u.Checks)-1].Status == runner.CheckWarn {
			got[u.ID] = "warned"
		}
	}
	if got["daily/2026-07-05"] != "warned" || got["daily/2026-07-06"] != "failed" || got["daily/2026-07-04"] != "succeeded" {
		t.Fatalf("units: %v", got)
	}
	if n := countRows(t, p, "SELECT count(*) FROM daily WHERE d = DATE '2026-07-06'"); n != "10" {
		t.Fatalf("the failed partition holds %s rows, want its previous 10", n)
	}
	if n := countRows(t, p, "SELECT count(*) FROM daily WHERE d = DATE '2026-07-05'"); n != "3" {
		t.Fatalf("the warned partition holds %s rows, want the committed 3", n)
	}
	if s := pass(t, p, o); s.Created != 2 || s.Delivered != 2 {
		t.Fatalf("pass after the drift: %+v", s)
	}
	want := []string{"drift daily 2026-07-05 x1", "unit_failed daily 2026-07-06 x1"}
	if got := rc.events(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("received %q, want %q", got, want)
	}
	if s := pass(t, p, o); s.Created != 0 || s.Delivered != 0 {
		t.Fatalf("second pass created or sent: %+v", s)
	}
}

// countRows runs a count on the project's default target, in its schema.
func countRows(t *testing.T, p *project.Project, q string) string {
	t.Helper()
	tgt := p.Targets[p.DefaultTarget]
	ad, _ := adapters.Lookup(tgt.Engine)
	settings := map[string]string{}
	for k, v := range tgt.Settings {
		settings[k] = os.ExpandEnv(v)
	}
	if tgt.Engine == "duckdb" {
		settings["path"] = filepath.Join(p.Root, settings["path"])
	}
	eng, err := ad.Open(context.Background(), settings)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	s, err := eng.Session(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q = strings.Replace(q, "FROM daily", "FROM "+ad.Dialect.Qualify(plan.Relation{Schema: tgt.Schema, Name: "daily"}), 1)
	_, rows, err := s.Query(context.Background(), q, 0)
	if err != nil || len(rows) != 1 {
		t.Fatalf("%s: %v", q, err)
	}
	return rows[0][0]
}
