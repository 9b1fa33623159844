package compiler_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

const jinjaProject = `name = "shop"
default_target = "dev"
[targets.dev]
engine = "duckdb"
path = "target/dev.duckdb"
schema = "main"
threads = 3
[targets.prod]
engine = "duckdb"
path = "target/prod.duckdb"
schema = "main"
[targets.pg]
engine = "postgres"
dsn = "postgres://u@localhost/shopdb?sslmode=disable"
schema = "analytics"
[vars]
start_date = "2018-01-01"
methods = ["credit_card", "coupon"]
`

// jinjaDir writes a project with the given models (name → body).
func jinjaDir(t *testing.T, models map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"project.toml": jinjaProject}
	for n, body := range models {
		files["models/"+n+".sql"] = body
	}
	for p, text := range files {
		path := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

var jinjaAsOf = time.Date(2026, 8, 1, 0, 0, 0, 0, time.UTC)

// compileJinja compiles dir for target with the project changed by mod.
func compileJinja(t *testing.T, dir, target string, mod func(*project.Project), opts compiler.Options) *plan.Plan {
	t.Helper()
	p, err := project.LoadCached(dir, opts.Cache)
	if err != nil {
		t.Fatal(err)
	}
	if mod != nil {
		mod(p)
	}
	opts.Target, opts.Models = target, true
	if opts.AsOf.IsZero() {
		opts.AsOf = jinjaAsOf
	}
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

func unitSQL(pl *plan.Plan, model string) string {
	var b strings.Builder
	for _, u := range pl.Units {
		if u.Model != model {
			continue
		}
		for _, s := range u.Steps {
			b.WriteString(s.SQL)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// TestTargetObject: target is bound per compiled target, and a target
// changes a model's code hash only when it changes the rendered SQL.
func TestTargetObject(t *testing.T) {
	dir := jinjaDir(t, map[string]string{
		"by_engine": `SELECT {% if target.type == 'postgres' %}1{% else %}2{% endif %} AS x`,
		"by_name":   `SELECT '{{ target.name }}' AS t, {{ target.threads }} AS n`,
		"fields":    `SELECT '{{ target.type }}|{{ target.schema }}|{{ target.database }}|{{ target.profile_name }}' AS f, '{{ this.schema }}.{{ this.name }}' AS r`,
	})
	dev := compileJinja(t, dir, "dev", nil, compiler.Options{})
	prod := compileJinja(t, dir, "prod", nil, compiler.Options{})
	pg := compileJinja(t, dir, "pg", nil, compiler.Options{})
	if dev.Nodes["by_engine"].CodeHash != prod.Nodes["by_engine"].CodeHash {
		t.Error("by_engine: another target of the same engine changed the code hash")
	}
	if dev.Nodes["by_name"].CodeHash == prod.Nodes["by_name"].CodeHash {
		t.Error("by_name: the target's name is in the SQL but the code hash did not change")
	}
	for _, c := range []struct {
		pl         *plan.Plan
		model, sub string
	}{
		{dev, "by_engine", "2 AS x"}, {pg, "by_engine", "1 AS x"},
		{dev, "by_name", "'dev' AS t, 3 AS n"}, {prod, "by_name", "'prod' AS t"},
		{dev, "fields", "'duckdb|main|dev|shop'"}, {pg, "fields", "'postgres|analytics|shopdb|shop'"}, {pg, "fields", "'analytics.fields' AS r"},
	} {
		if sql := unitSQL(c.pl, c.model); !strings.Contains(sql, c.sub) {
			t.Errorf("%s on %s: no %q in\n%s", c.model, c.pl.Target, c.sub, sql)
		}
	}
}

// TestEnvVarCache: the value of every env_var() a model reads is an input
// of its cached render: a changed value renders again; a secret's render
// is never written to the cache.
func TestEnvVarCache(t *testing.T) {
	dir := jinjaDir(t, map[string]string{
		"region": `SELECT '{{ env_var("IDEMC_TEST_REGION", "none") }}' AS r`,
		"secret": `SELECT '{{ env_var("DBT_ENV_SECRET_IDEMC_TEST") }}' AS s`,
	})
	cache := filepath.Join(dir, "target")
	t.Setenv("DBT_ENV_SECRET_IDEMC_TEST", "hunter2")
	run := func() (*plan.Plan, *compiler.Work) {
		w := &compiler.Work{}
		return compileJinja(t, dir, "dev", nil, compiler.Options{Cache: cache, Work: w}), w
	}
	t.Setenv("IDEMC_TEST_REGION", "eu")
	pl, w := run()
	if w.Hits.Load() != 0 || !strings.Contains(unitSQL(pl, "region"), "'eu'") {
		t.Fatalf("first compile: %d hits\n%s", w.Hits.Load(), unitSQL(pl, "region"))
	}
	if _, w = run(); w.Hits.Load() != 1 {
		t.Fatalf("same environment: %d hits, want 1 (region; the secret's render is never cached)", w.Hits.Load())
	}
	t.Setenv("IDEMC_TEST_REGION", "us")
	pl, w = run()
	if w.Hits.Load() != 0 || !strings.Contains(unitSQL(pl, "region"), "'us'") {
		t.Fatalf("changed env var: %d hits, SQL\n%s", w.Hits.Load(), unitSQL(pl, "region"))
	}
	os.Unsetenv("IDEMC_TEST_REGION")
	if pl, _ = run(); !strings.Contains(unitSQL(pl, "region"), "'none'") {
		t.Fatalf("unset env var: the cached value was used\n%s", unitSQL(pl, "region"))
	}
	b, err := os.ReadFile(filepath.Join(cache, "compile_cache.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "hunter2") {
		t.Fatal("the compile cache holds a secret env var's value")
	}
}

// TestVarSemantics: in a native project '{{ var("d") }}' doubles the
// quotes (the parser says so: an L000 note), and a list var is a SQL list;
// with RawVars (dbt projects) var() prints the raw value.
func TestVarSemantics(t *testing.T) {
	dir := jinjaDir(t, map[string]string{
		"quoted": `SELECT * FROM (SELECT DATE '2019-01-01' AS d, 'coupon' AS m) AS t WHERE d > '{{ var("start_date") }}' AND m IN {{ var("methods") }}`,
		"looped": `SELECT {% for m in var("methods") %}'{{ m }}' AS c{{ loop.index }}{% if not loop.last %}, {% endif %}{% endfor %}`,
	})
	native := compileJinja(t, dir, "dev", nil, compiler.Options{})
	if sql := unitSQL(native, "quoted"); !strings.Contains(sql, `d > ''2018-01-01''`) || !strings.Contains(sql, `m IN ('credit_card', 'coupon')`) {
		t.Errorf("native: %s", sql)
	}
	l000 := func(pl *plan.Plan) bool {
		for _, f := range pl.Findings {
			if f.Rule == "L000" && strings.HasSuffix(f.Path, "quoted.sql") {
				return true
			}
		}
		return false
	}
	if !l000(native) {
		t.Errorf("native: no L000 note for the doubled quotes: %v", native.Findings)
	}
	raw := compileJinja(t, dir, "dev", func(p *project.Project) { p.RawVars = true }, compiler.Options{})
	if sql := unitSQL(raw, "quoted"); !strings.Contains(sql, `d > '2018-01-01'`) || !strings.Contains(sql, `m IN ['credit_card', 'coupon']`) {
		t.Errorf("raw: %s", sql)
	}
	for _, pl := range []*plan.Plan{native, raw} {
		if sql := unitSQL(pl, "looped"); !strings.Contains(sql, `'credit_card' AS c1, 'coupon' AS c2`) {
			t.Errorf("for over a list var: %s", sql)
		}
	}
}

// TestLogicalTimeInTemplates: run_started_at, invocation_id and
// current_timestamp() are the run's logical time, filled at expansion: two
// logical times give two SQL texts but one code hash.
func TestLogicalTimeInTemplates(t *testing.T) {
	dir := jinjaDir(t, map[string]string{
		"stamped": `SELECT '{{ run_started_at }}' AS s, '{{ run_started_at.strftime("%Y-%m") }}' AS m, '{{ invocation_id }}' AS i, {{ dbt.current_timestamp() }} AS c`,
		"warned":  `{{ exceptions.warn("deprecated model") }}SELECT 1 AS x`,
	})
	a := compileJinja(t, dir, "dev", nil, compiler.Options{})
	b := compileJinja(t, dir, "dev", nil, compiler.Options{AsOf: jinjaAsOf.AddDate(0, 1, 0)})
	sa, sb := unitSQL(a, "stamped"), unitSQL(b, "stamped")
	if !strings.Contains(sa, "'2026-08-01 00:00:00+00:00' AS s, '2026-08' AS m") || !strings.Contains(sb, "'2026-09-01 00:00:00+00:00' AS s, '2026-09' AS m") {
		t.Errorf("run_started_at:\n%s\n%s", sa, sb)
	}
	if !strings.Contains(sa, "TIMESTAMP '2026-08-01 00:00:00") {
		t.Errorf("current_timestamp is not the logical time: %s", sa)
	}
	if a.Nodes["stamped"].CodeHash != b.Nodes["stamped"].CodeHash {
		t.Error("the logical time changed the code hash")
	}
	warned := false
	for _, f := range a.Findings {
		warned = warned || f.Rule == "J001" && f.Message == "deprecated model" && strings.HasSuffix(f.Path, "warned.sql")
	}
	if !warned {
		t.Errorf("exceptions.warn: no J001 finding in %v", a.Findings)
	}
}

// TestRawVarsCache: var()'s meaning is an input of the compile cache: a
// project read as a dbt project renders again, with raw values.
func TestRawVarsCache(t *testing.T) {
	dir := jinjaDir(t, map[string]string{"d": `SELECT {{ var("start_date") }} AS d`})
	cache := filepath.Join(dir, "target")
	native := compileJinja(t, dir, "dev", nil, compiler.Options{Cache: cache})
	raw := compileJinja(t, dir, "dev", func(p *project.Project) { p.RawVars = true }, compiler.Options{Cache: cache})
	if !strings.Contains(unitSQL(native, "d"), "SELECT '2018-01-01' AS d") || !strings.Contains(unitSQL(raw, "d"), "SELECT 2018-01-01 AS d") {
		t.Fatalf("native:\n%s\nraw:\n%s", unitSQL(native, "d"), unitSQL(raw, "d"))
	}
}
