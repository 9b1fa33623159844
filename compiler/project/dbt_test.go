package project

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters/seed"
)

// writeDBT writes a dbt project: a minimal dbt_project.yml and a duckdb
// profile unless files set their own.
func writeDBT(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	all := map[string]string{
		"dbt_project.yml": "name: p\nprofile: p\n",
		"profiles.yml":    "p:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: w.duckdb\n",
	}
	for k, v := range files {
		all[k] = v
	}
	for rel, text := range all {
		full := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func modelNamed(p *Project, name string) *Model {
	for _, m := range p.Models {
		if m.Name == name {
			return m
		}
	}
	return nil
}

// TestDBTJaffle loads testdata/dbt/jaffle: every file around the SQL maps
// onto the structures the native loader fills.
func TestDBTJaffle(t *testing.T) {
	t.Setenv("JAFFLE_DUCKDB_PATH", "")
	os.Unsetenv("JAFFLE_DUCKDB_PATH")
	p, err := Load("../../testdata/dbt/jaffle")
	if err != nil {
		t.Fatal(err)
	}
	if !p.DBT || !p.RawVars || p.Name != "jaffle" || p.DefaultTarget != "dev" {
		t.Fatalf("project: DBT=%v RawVars=%v name=%q default=%q", p.DBT, p.RawVars, p.Name, p.DefaultTarget)
	}
	dev := p.Targets["dev"]
	if dev.Engine != "duckdb" || dev.Schema != "main" || dev.Threads != 2 || dev.Settings["path"] != "target/jaffle.duckdb" {
		t.Errorf("target dev = %+v", dev)
	}
	if got := p.Vars["payment_methods"]; !reflect.DeepEqual(got, []any{"credit_card", "coupon", "bank_transfer", "gift_card"}) {
		t.Errorf("var payment_methods = %#v", got)
	}
	want := map[string]string{"customers": "table", "orders": "table", "fct_payments": "incremental",
		"stg_customers": "view", "stg_orders": "view", "stg_payments": "view"}
	if len(p.Models) != len(want) {
		t.Fatalf("%d models, want %d", len(p.Models), len(want))
	}
	for name, mat := range want {
		if m := modelNamed(p, name); m == nil || m.Config.Materialized != mat {
			t.Errorf("%s: materialized %v, want %s", name, m, mat)
		}
	}
	cust := modelNamed(p, "customers")
	if !reflect.DeepEqual([]string(cust.Config.Tags), []string{"marts", "daily"}) {
		t.Errorf("customers tags = %v: dbt adds a folder's tags and the model's", cust.Config.Tags)
	}
	if strings.Contains(cust.Body, "config(") || strings.Count(cust.Body, "\n") != strings.Count(readFile(t, "../../testdata/dbt/jaffle/models/marts/customers.sql"), "\n") {
		t.Errorf("customers body keeps the config() call or loses lines:\n%s", cust.Body)
	}
	if cust.Config.Description == "" {
		t.Error("customers: the properties file's description is lost")
	}
	fct := modelNamed(p, "fct_payments")
	if fct.Strategy != "delete_insert" || !reflect.DeepEqual([]string(fct.Config.UniqueKey), []string{"payment_id"}) {
		t.Errorf("fct_payments: strategy %q unique_key %v", fct.Strategy, fct.Config.UniqueKey)
	}
	if pos := fct.HeaderLine["unique_key"]; pos.Path != "models/marts/fct_payments.sql" || pos.Line != 4 {
		t.Errorf("fct_payments unique_key set at %v, want its config() line", pos)
	}
	var names []string
	for _, c := range modelNamed(p, "orders").Checks {
		names = append(names, c.Name+"/"+c.Severity)
	}
	wantChecks := []string{"unique(order_id)/error", "not_null(order_id)/error", "not_null(customer_id)/error",
		"relationships(customer_id -> customers.customer_id)/error", "accepted_values(status)/error"}
	if !reflect.DeepEqual(names, wantChecks) {
		t.Errorf("orders checks = %v, want %v", names, wantChecks)
	}
	if c := cust.Checks[2]; c.Name != "not_null(first_order)" || c.Severity != "warn" || c.Pos.Path != "models/marts/schema.yml" {
		t.Errorf("customers' warn test = %+v", c)
	}
	if s := p.Seed("raw_orders"); s.ColumnTypes["order_date"] != seed.Date {
		t.Errorf("raw_orders column_types = %v", s.ColumnTypes)
	}
	src := p.Sources["jaffle_raw"]
	if src == nil || src.Schema != "main" || !reflect.DeepEqual(src.Tables, []string{"raw_payments"}) || src.LoadedAt["raw_payments"] != "_loaded_at" || src.Freshness["raw_payments"] == nil {
		t.Errorf("source jaffle_raw = %+v", src)
	}
	if len(p.Macros) != 1 || len(p.Tests) != 1 {
		t.Errorf("%d macro files, %d tests", len(p.Macros), len(p.Tests))
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Error(), "models/marts/schema.yml:43: exposures ignored") {
		t.Errorf("warnings = %v", p.Warnings)
	}
}

func readFile(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDBTConfigMapping: dbt's configs, from every layer, onto idemc's
// settings.
func TestDBTConfigMapping(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		check func(t *testing.T, m *Model)
	}{
		{"microbatch is partitions", map[string]string{"models/e.sql": "{{ config(materialized='incremental', incremental_strategy='microbatch', event_time='ts', batch_size='day', begin='2026-07-01') }}\nselect 1 as ts"},
			func(t *testing.T, m *Model) {
				if m.Config.PartitionBy != "ts" || m.Granularity != "day" || m.Strategy != "delete_insert" || m.Config.Lookback != 1 || m.FirstPartition.IsZero() {
					t.Errorf("%+v %+v", m.Config, m.Settled)
				}
			}},
		{"partition_by dict", map[string]string{"models/e.sql": "{{ config(materialized='incremental', partition_by={'field': 'd', 'data_type': 'date', 'granularity': 'month'}, begin='2026-01-01', incremental_strategy='insert_overwrite') }}\nselect 1 as d"},
			func(t *testing.T, m *Model) {
				if m.Config.PartitionBy != "d" || m.Granularity != "month" || m.Strategy != "insert_overwrite" {
					t.Errorf("%+v", m.Config)
				}
			}},
		{"var in config, list unique_key, merge columns", map[string]string{
			"dbt_project.yml": "name: p\nvars:\n  mat: table\n",
			"models/e.sql":    "{{ config(materialized=var('mat'), unique_key=['a', 'b'], merge_exclude_columns=['c'], schema='s', alias='e2', on_schema_change='append_new_columns') }}\nselect 1 as a"},
			func(t *testing.T, m *Model) {
				c := m.Config
				if c.Materialized != "table" || len(c.UniqueKey) != 2 || c.MergeExcludeColumns[0] != "c" || c.Schema != "s" || c.Alias != "e2" || c.OnSchemaChange != "append_new_columns" {
					t.Errorf("%+v", c)
				}
			}},
		{"folder + keys, properties config, call wins", map[string]string{
			"dbt_project.yml":  "name: p\nmodels:\n  p:\n    +materialized: table\n    sub:\n      materialized: view\n      +schema: x\n",
			"models/sub/e.yml": "version: 2\nmodels:\n  - name: e\n    config:\n      alias: from_yml\n      schema: y\n",
			"models/sub/e.sql": "{{ config(alias='from_sql') }}\nselect 1 as a"},
			func(t *testing.T, m *Model) {
				if m.Config.Materialized != "view" || m.Config.Schema != "y" || m.Config.Alias != "from_sql" {
					t.Errorf("%+v", m.Config)
				}
			}},
		{"no unique_key appends (lint refuses it, L004)", map[string]string{"models/e.sql": "{{ config(materialized='incremental') }}\nselect 1 as a"},
			func(t *testing.T, m *Model) {
				if m.Strategy != "append" || m.Config.AllowAppend {
					t.Errorf("strategy %q allow_append %v", m.Strategy, m.Config.AllowAppend)
				}
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(writeDBT(t, tc.files))
			if err != nil {
				t.Fatal(err)
			}
			m := modelNamed(p, "e")
			if m == nil {
				t.Fatal("model e not loaded")
			}
			tc.check(t, m)
		})
	}
}

// TestDBTDisabledAndIgnored: enabled=false leaves the model out; what
// idemc does not run is a warning once per kind, not an error.
func TestDBTDisabledAndIgnored(t *testing.T) {
	p, err := Load(writeDBT(t, map[string]string{
		"models/off.sql": "{{ config(enabled=false) }}\nselect 1 as a",
		"models/on.sql":  "{{ config(persist_docs={'relation': true}, post_hook='grant select on {{ this }} to x') }}\nselect 1 as a",
		"models/a.yml":   "version: 2\nmetrics:\n  - name: m1\nsemantic_models:\n  - name: s1\nmodels:\n  - name: off\n",
		"models/b.yml":   "version: 2\nmetrics:\n  - name: m2\nunit_tests:\n  - name: u\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Models) != 1 || p.Models[0].Name != "on" {
		t.Errorf("models = %v, want on only", p.Models)
	}
	var got []string
	for _, w := range p.Warnings {
		got = append(got, w.Error())
	}
	want := []string{
		"models/a.yml:2: metrics ignored: idemc does not run them",
		"models/a.yml:4: semantic models ignored: idemc does not run them",
		"models/b.yml:4: unit tests ignored: idemc does not run them",
		"models/on.sql:1: config persist_docs ignored: idemc does not map it (docs/dbt.md lists what it maps)",
		"models/on.sql:1: config post_hook ignored: idemc does not map it (docs/dbt.md lists what it maps)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestDBTErrors: bad input names the file, the line and the key.
func TestDBTErrors(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"yaml syntax", map[string]string{"models/s.yml": "version: 2\nmodels:\n\t- name: a\n"}, "models/s.yml:3: not valid YAML: found character that cannot start any token"},
		{"unknown project key", map[string]string{"dbt_project.yml": "name: p\nmodel-path: [m]\n"}, `dbt_project.yml:2: unknown key "model-path" in dbt_project.yml; did you mean "model-paths"?`},
		{"bad materialized", map[string]string{"models/a.sql": "\n{{ config(\n  materialized='tabel') }}\nselect 1 as a"}, `models/a.sql:3: materialized = "tabel" is not valid; did you mean "table"?`},
		{"config positional", map[string]string{"models/a.sql": "{{ config('table') }}\nselect 1 as a"}, "models/a.sql:1: config(): expected a keyword argument"},
		{"config expression", map[string]string{"models/a.sql": "{{ config(schema=target.schema ~ '_x') }}\nselect 1 as a"}, "models/a.sql:1: config(): expected , between arguments"},
		{"bad strategy", map[string]string{"models/a.sql": "{{ config(materialized='incremental', unique_key='a', incremental_strategy='upsert') }}\nselect 1 as a"}, `models/a.sql:1: config incremental_strategy: "upsert" is not one idemc maps`},
		{"accepted_values without values", map[string]string{"models/a.sql": "select 1 as a", "models/s.yml": "models:\n  - name: a\n    columns:\n      - name: a\n        tests:\n          - accepted_values:\n              quote: false\n"}, "models/s.yml:6: test accepted_values needs values"},
		{"relationships to nothing", map[string]string{"models/a.sql": "select 1 as a", "models/s.yml": "models:\n  - name: a\n    columns:\n      - name: a\n        tests:\n          - relationships:\n              to: ref('nope')\n              field: id\n"}, `models/s.yml:6: checks.relationships: "nope" is neither a model`},
		{"bad severity", map[string]string{"models/a.sql": "select 1 as a", "models/s.yml": "models:\n  - name: a\n    columns:\n      - name: a\n        tests:\n          - unique:\n              config: {severity: fatal}\n"}, `models/s.yml:6: test unique: severity "fatal" is not valid`},
		{"properties of no model", map[string]string{"models/s.yml": "models:\n  - name: ghost\n"}, "models/s.yml:2: model ghost is described here but has no .sql file"},
		{"no profile", map[string]string{"profiles.yml": "other:\n  outputs: {}\n"}, `profiles.yml:1: profiles.yml has no profile "p"`},
		{"unknown engine", map[string]string{"profiles.yml": "p:\n  target: dev\n  outputs:\n    dev:\n      type: oracle\n"}, `profiles.yml:5: outputs.dev: type "oracle" is not an engine idemc runs`},
		{"seed type", map[string]string{"seeds/s.csv": "a\n1\n", "seeds/s.yml": "seeds:\n  - name: s\n    config:\n      column_types:\n        a: geography\n"}, `seeds/s.yml:5: seed s: column_types.a = "geography" is not a type idemc maps`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeDBT(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error:\n%v\nwant it to contain:\n%s", err, tc.want)
			}
		})
	}
}

// TestDBTProfiles: connection fields become target settings, env_var()
// becomes ${VAR} (read only when a connection opens), a password stays
// apart from the DSN.
func TestDBTProfiles(t *testing.T) {
	t.Setenv("PGHOST_X", "db.example")
	dir := writeDBT(t, map[string]string{"profiles.yml": `p:
  target: "{{ env_var('P_TARGET', 'pg') }}"
  outputs:
    pg:
      type: postgres
      host: "{{ env_var('PGHOST_X') }}"
      port: 5432
      user: etl
      password: "{{ env_var('PG_SECRET') }}"
      dbname: wh
      schema: analytics
    my:
      type: mariadb
      server: m.example
      username: etl
      schema: wh
    sf:
      type: snowflake
      account: xy123
      user: u
      password: "{{ env_var('SF_PW') }}"
      database: DB
      warehouse: W
      schema: S
`})
	p, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultTarget != "pg" {
		t.Errorf("default target %q", p.DefaultTarget)
	}
	pg := p.Targets["pg"]
	if pg.Engine != "postgres" || pg.Settings["dsn"] != "host=${PGHOST_X} port=5432 user=etl dbname=wh" || pg.Settings["password"] != "${PG_SECRET}" || pg.Schema != "analytics" {
		t.Errorf("pg = %+v", pg)
	}
	if my := p.Targets["my"]; my.Engine != "mysql" || my.Settings["dsn"] != "etl@tcp(m.example:3306)/wh" {
		t.Errorf("my = %+v", my)
	}
	if sf := p.Targets["sf"]; sf.Engine != "snowflake" || sf.Settings["account"] != "xy123" || sf.Settings["password"] != "${SF_PW}" || sf.Settings["warehouse"] != "W" {
		t.Errorf("sf = %+v", sf)
	}
	if _, err := pg.Resolve(func(k string) (string, bool) { return os.LookupEnv(k) }); err == nil || !strings.Contains(err.Error(), "PG_SECRET") {
		t.Errorf("resolve without the secret: %v", err)
	}
}

// TestDBTConfigTarget: config() may read target.x (the first pass of a
// dbt render): for the target the project is loaded for (LoadFor, which
// --target passes), else the one IDEMC_TARGET names, else the profile's;
// the project is then bound to it.
func TestDBTConfigTarget(t *testing.T) {
	dir := writeDBT(t, map[string]string{
		"profiles.yml": "p:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: a.duckdb\n    ci:\n      type: duckdb\n      path: b.duckdb\n      schema: ci_main\n",
		"models/e.sql": "{{ config(schema=target.name, alias=target.schema) }}\nselect 1 as a",
	})
	for _, tc := range []struct{ env, load, schema, alias, bound string }{
		{"", "", "dev", "main", "dev"},
		{"ci", "", "ci", "ci_main", "ci"},
		{"", "ci", "ci", "ci_main", "ci"},
		{"ci", "dev", "dev", "main", "dev"}, // --target wins over IDEMC_TARGET
	} {
		t.Setenv("IDEMC_TARGET", tc.env)
		p, err := LoadFor(dir, "", tc.load)
		if err != nil {
			t.Fatal(err)
		}
		m := modelNamed(p, "e")
		if m.Config.Schema != tc.schema || m.Config.Alias != tc.alias || p.TargetBound != tc.bound {
			t.Errorf("IDEMC_TARGET=%q, loaded for %q: schema %q alias %q bound to %q", tc.env, tc.load, m.Config.Schema, m.Config.Alias, p.TargetBound)
		}
	}
}

// TestDBTTestConfigs: data_tests: +severity in dbt_project.yml is every
// test's default (a test's own severity wins); a where: filter, which idemc
// does not apply, is reported once.
func TestDBTTestConfigs(t *testing.T) {
	p, err := Load(writeDBT(t, map[string]string{
		"dbt_project.yml": "name: p\ndata_tests:\n  p:\n    +severity: warn\n",
		"models/a.sql":    "select 1 as a, 2 as b",
		"models/s.yml": `models:
  - name: a
    columns:
      - name: a
        data_tests:
          - unique
          - not_null:
              config: {severity: error, where: "a > 0"}
      - name: b
        data_tests:
          - not_null:
              config: {where: "b > 0"}
`,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range modelNamed(p, "a").Checks {
		got = append(got, c.Name+"/"+c.Severity)
	}
	if want := []string{"unique(a)/warn", "not_null(a)/error", "not_null(b)/warn"}; !reflect.DeepEqual(got, want) {
		t.Errorf("checks %v, want %v", got, want)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Error(), "models/s.yml:7: test config where ignored") {
		t.Errorf("warnings = %v", p.Warnings)
	}
}

// TestDBTSeedSchema: +schema for one seed, in dbt_project.yml's seeds:
// nesting or the seed's properties config, is that seed's schema (the
// properties entry wins); the others keep every seed's +schema.
func TestDBTSeedSchema(t *testing.T) {
	for _, tc := range []struct {
		name    string
		files   map[string]string
		want    map[string]string // seed → Seed.Schema
		seedAll string
	}{
		{"none", nil, map[string]string{"a": "", "b": ""}, ""},
		{"all seeds", map[string]string{"dbt_project.yml": "name: p\nprofile: p\nseeds:\n  +schema: raw\n"}, map[string]string{"a": "", "b": ""}, "raw"},
		{"nested under the project", map[string]string{"dbt_project.yml": "name: p\nprofile: p\nseeds:\n  +schema: raw\n  p:\n    a:\n      +schema: one\n"}, map[string]string{"a": "one", "b": ""}, "raw"},
		{"properties config", map[string]string{"seeds/s.yml": "version: 2\nseeds:\n  - name: b\n    config:\n      schema: two\n"}, map[string]string{"a": "", "b": "two"}, ""},
		{"properties win", map[string]string{
			"dbt_project.yml": "name: p\nprofile: p\nseeds:\n  p:\n    b:\n      +schema: one\n",
			"seeds/s.yml":     "version: 2\nseeds:\n  - name: b\n    config:\n      schema: two\n",
		}, map[string]string{"a": "", "b": "two"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"seeds/a.csv": "x\n1\n", "seeds/b.csv": "x\n2\n"}
			for k, v := range tc.files {
				files[k] = v
			}
			p, err := Load(writeDBT(t, files))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range p.Seeds {
				if s.Schema != tc.want[s.Name] {
					t.Errorf("seed %s: schema %q, want %q", s.Name, s.Schema, tc.want[s.Name])
				}
			}
			if p.SeedSchema != tc.seedAll {
				t.Errorf("every seed's schema %q, want %q", p.SeedSchema, tc.seedAll)
			}
			for _, w := range p.Warnings {
				if strings.Contains(w.Error(), "schema") {
					t.Errorf("warning: %v", w)
				}
			}
		})
	}
}

// TestDBTSourceIdentifier: a source table's identifier is the relation
// source() reads; a table without one is read by its name.
func TestDBTSourceIdentifier(t *testing.T) {
	p, err := Load(writeDBT(t, map[string]string{
		"models/a.sql":       "select 1 as a",
		"models/sources.yml": "version: 2\nsources:\n  - name: s\n    tables:\n      - name: orders\n        identifier: orders_v2\n      - name: users\n      - name: same\n        identifier: same\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	src := p.Sources["s"]
	for table, want := range map[string]string{"orders": "orders_v2", "users": "users", "same": "same"} {
		if got := src.Identifier(table); got != want {
			t.Errorf("Identifier(%q) = %q, want %q", table, got, want)
		}
	}
	if !reflect.DeepEqual(src.Tables, []string{"orders", "users", "same"}) {
		t.Errorf("tables %v: source() names them, not their identifiers", src.Tables)
	}
}
