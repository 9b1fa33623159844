package project

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idemc/idemc/compiler/diag"
)

const baseToml = `name = "t"
default_target = "local"
[targets.local]
engine = "duckdb"
path = "target/w.duckdb"
schema = "main"
`

// writeProject writes files (slash paths) under a new temporary folder.
func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		full := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func load(t *testing.T, files map[string]string) *Project {
	t.Helper()
	p, err := Load(writeProject(t, files))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func model(t *testing.T, p *Project, name string) *Model {
	t.Helper()
	for _, m := range p.Models {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no model %q", name)
	return nil
}

// TestFolderDefaults checks the three layers: [models], [models."folder/*"]
// (more specific folders later) and the header, merged key by key with the
// header winning, including each checks.* entry and zero values.
func TestFolderDefaults(t *testing.T) {
	p := load(t, map[string]string{
		"project.toml": baseToml + `
[models]
materialized = "view"
tags = ["all"]
on_schema_change = "append_new_columns"

[models."staging/*"]
materialized = "incremental"
unique_key = "id"
schema = "stg"
strict_parse = true
lookback = 2
checks.min_rows = 1
checks.unique = ["id"]

[models."staging/deep/*"]
schema = "deep"
checks.not_null = ["id"]
`,
		"models/root.sql":          "SELECT 1 AS id\n",
		"models/staging/plain.sql": "SELECT 1 AS id\n",
		"models/staging/over.sql": `/* idemc
schema = "override"
strict_parse = false
lookback = 0
tags = ["mine"]
[checks]
unique = ["k"]
expect = ["count(*) > 0"]
*/
SELECT 1 AS id, 1 AS k
`,
		"models/staging/deep/d.sql": `/* idemc
materialized = "ephemeral"
*/
SELECT 1 AS id
`,
		"models/stagingish/s.sql": "SELECT 1 AS id\n",
	})
	type want struct {
		materialized, schema string
		strict               bool
		lookback             int
		tags                 []string
		onSchemaChange       string
		checks               map[string]any
	}
	tests := []struct {
		name string
		want want
	}{
		{"root", want{"view", "", false, 0, []string{"all"}, "append_new_columns", nil}},
		{"plain", want{"incremental", "stg", true, 2, []string{"all"}, "append_new_columns",
			map[string]any{"min_rows": int64(1), "unique": []any{"id"}}}},
		{"over", want{"incremental", "override", false, 0, []string{"mine"}, "append_new_columns",
			map[string]any{"min_rows": int64(1), "unique": []any{"k"}, "expect": []any{"count(*) > 0"}}}},
		{"d", want{"ephemeral", "deep", true, 2, []string{"all"}, "append_new_columns",
			map[string]any{"min_rows": int64(1), "unique": []any{"id"}, "not_null": []any{"id"}}}},
		// "staging/*" must not match the sibling folder "stagingish".
		{"s", want{"view", "", false, 0, []string{"all"}, "append_new_columns", nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := model(t, p, tt.name).Config
			got := want{c.Materialized, c.Schema, c.StrictParse, c.Lookback, c.Tags, c.OnSchemaChange, nil}
			if len(c.Checks) > 0 {
				got.checks = map[string]any{}
				for k, v := range c.Checks {
					got.checks[k] = v.Value
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("config\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
	// Header positions are recorded for the settings the header set.
	over := model(t, p, "over")
	for key, line := range map[string]int{"schema": 2, "lookback": 4, "checks": 6, "checks.unique": 7, "checks.expect": 8} {
		if got := over.HeaderLine[key]; got != (Pos{"models/staging/over.sql", line}) {
			t.Errorf("HeaderLine[%q] = %+v, want line %d", key, got, line)
		}
	}
	if _, ok := over.HeaderLine["materialized"]; ok {
		t.Errorf("HeaderLine has materialized, which only the folder set")
	}
}

// TestModelBody checks that the header is blanked out line for line, that a
// leading -- comment may precede it, and where the body starts.
func TestModelBody(t *testing.T) {
	tests := []struct {
		name, text   string
		materialized string
		bodyLine     int
	}{
		{"no header", "SELECT 1\n", "view", 1},
		{"header", "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1\n", "table", 4},
		{"after blank lines", "\n\n/* idemc materialized = \"table\" */\n\nSELECT 1\n", "table", 5},
		{"after a line comment", "-- the daily events\n/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1\n", "table", 1},
		{"other comment", "/* idemcx: not settings */\nSELECT 1\n", "view", 1},
		{"plain comment", "/* materialized = \"table\" */\nSELECT 1\n", "view", 1},
		{"header not first", "SELECT 1\n/* idemc\nmaterialized = \"table\"\n*/\n", "view", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseModel("models/m.sql", tt.text, &layer{defined: map[string]bool{}}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if m.Config.Materialized != tt.materialized {
				t.Errorf("materialized = %q, want %q", m.Config.Materialized, tt.materialized)
			}
			if m.BodyLine != tt.bodyLine {
				t.Errorf("BodyLine = %d, want %d", m.BodyLine, tt.bodyLine)
			}
			if strings.Count(m.Body, "\n") != strings.Count(tt.text, "\n") {
				t.Errorf("body has %d lines, text %d: line numbers moved\n%q", strings.Count(m.Body, "\n"), strings.Count(tt.text, "\n"), m.Body)
			}
			if strings.Contains(m.Body, "materialized") && tt.materialized == "table" {
				t.Errorf("header left in body: %q", m.Body)
			}
		})
	}
}

// TestProjectErrors: every mistake in project.toml is reported with the
// file, the line and what to do.
func TestProjectErrors(t *testing.T) {
	tests := []struct {
		name, toml string
		want       []string // each must appear, in order, one per error
	}{
		{"malformed", "name = \"t\nx = 1\n", []string{`project.toml:1:10: invalid TOML: strings cannot contain newlines (key name); close the quote on the same line`}},
		{"bare word", "name = t\n", []string{`project.toml:1:8: invalid TOML: expected value but found "t" instead (key name); put text in quotes: name = "t"`}},
		{"duplicate key", "name = \"t\"\nname = \"u\"\n", []string{`project.toml:2:12: invalid TOML: Key 'name' has already been defined. (key name); set each key once`}},
		{"missing name", "default_target = \"\"\n", []string{`project.toml:1: name is required: add name = "my_project"`}},
		{"unknown top key", "name = \"t\"\ndefualt_target = \"x\"\n", []string{`project.toml:2: unknown key "defualt_target"; did you mean "default_target"?`}},
		{"unknown top key far", "name = \"t\"\nzzz = 1\n", []string{`project.toml:2: unknown key "zzz"; valid keys: name, default_target, targets, sources, seeds, vars, models, run`}},
		{"unknown target key", baseToml + "paht = \"x\"\n", []string{`project.toml:7: unknown key "paht" in [targets.local]; did you mean "path"?`}},
		{"key of another engine", baseToml + "dsn = \"x\"\n", []string{`project.toml:7: [targets.local]: engine duckdb does not read "dsn"; its settings are engine, schema, state_schema, threads, path`}},
		{"unknown source key", baseToml + "[sources.raw]\nschema = \"r\"\ntabels = []\n", []string{`project.toml:9: unknown key "sources.raw.tabels"; did you mean "tables"?`}},
		{"unknown run key", baseToml + "[run]\nthread = 2\n", []string{`project.toml:8: unknown key "run.thread"; did you mean "threads"?`}},
		{"unknown seeds key", baseToml + "[seeds]\nschem = \"raw\"\n", []string{`project.toml:8: unknown key "seeds.schem"; did you mean "schema"?`}},
		{"unknown models key", baseToml + "[models]\nmaterialised = \"table\"\n", []string{`project.toml:8: unknown key "materialised" in [models]; did you mean "materialized"?`}},
		{"unknown folder key", baseToml + "[models.\"staging/*\"]\npartiton_by = \"d\"\n", []string{`project.toml:8: unknown key models."staging/*".partiton_by; did you mean "partition_by"?`}},
		{"unknown watermark key", baseToml + "[models]\nwatermark = { colum = \"u\" }\n", []string{
			`project.toml:8: unknown key "models.watermark.colum"; did you mean "column"?`,
			`project.toml:8: watermark needs a column`}},
		{"target threads below 1", baseToml + "threads = 0\n", []string{`project.toml:7: targets.local.threads must be a whole number of at least 1 (units run at once), not 0: threads = 4`}},
		{"target threads not a number", baseToml + "threads = \"many\"\n", []string{`project.toml:7: targets.local.threads must be a whole number of at least 1 (units run at once), not many: threads = 4`}},
		{"notify on a typo", baseToml + "[[notify]]\nname = \"a\"\non = \"partition_succeded\"\nurl = \"http://x\"\n", []string{`project.toml:7: [[notify]] a: on = "partition_succeded" is not an event; did you mean "partition_succeeded"?`}},
		{"notify without name or target", baseToml + "[[notify]]\non = \"run_finished\"\n", []string{
			`project.toml:7: [[notify]] #1 needs url = "https://…" or command = ["./script.sh", "{{ model }}"]`,
			`project.toml:7: [[notify]] needs name = "events_ready"`}},
		{"notify unknown key", baseToml + "[[notify]]\nname = \"a\"\non = \"run_finished\"\ncommand = [\"x\"]\nuri = \"y\"\n", []string{`project.toml:11: unknown key "notify.uri"; did you mean "url"?`}},
		{"wrong type run", baseToml + "[run]\nthreads = \"4\"\n", []string{`project.toml:8: run.threads must be a whole number, not a quoted string; write it like threads = 4`}},
		{"wrong type models", baseToml + "[models]\n\nlookback = \"x\"\n", []string{`project.toml:9: models.lookback must be a whole number, not a quoted string; write it like lookback = 1`}},
		{"wrong type folder", baseToml + "[models.\"a/*\"]\nallow_append = 1\n", []string{`project.toml:8: models."a/*".allow_append must be true or false, not a whole number; write it like allow_append = true`}},
		{"wrong type tables", baseToml + "[sources.raw]\nschema = \"r\"\ntables = \"x\"\n", []string{`project.toml:9: sources.raw.tables must be a list, not a quoted string; write it like tables = ["events", "users"]`}},
		{"wrong type target", baseToml + "threads = [1]\n", []string{`project.toml:7: targets.local.threads must be a quoted string, not a list: threads = "..."`}},
		{"scalar targets", "name = \"t\"\ntargets = 1\n", []string{`project.toml:2: targets must be a table: write it as a [targets] section`}},
		{"scalar vars", "name = \"t\"\nvars = \"x\"\n", []string{`project.toml:2: vars must be a table: write it as a [vars] section`}},
		{"scalar target", "name = \"t\"\n[targets]\nlocal = \"duckdb\"\n", []string{`project.toml:3: targets.local must be a table: write it as a [targets.local] section with engine = "duckdb"`}},
		{"scalar checks", baseToml + "[models]\nchecks = 1\n", []string{`project.toml:8: models.checks must be a table: [checks] with one check per line: min_rows = 1`}},
		{"no engine", "name = \"t\"\n[targets.local]\npath = \"x\"\n", []string{`project.toml:2: [targets.local] needs engine = "duckdb"`}},
		{"unknown engine", "name = \"t\"\n[targets.local]\nengine = \"postgre\"\n", []string{`project.toml:3: targets.local: unknown engine "postgre"; did you mean "postgres"? (one of bigquery, duckdb, mysql, postgres, snowflake, spark)`}},
		{"unknown engine far", "name = \"t\"\n[targets.local]\nengine = \"oracle\"\n", []string{`project.toml:3: targets.local: unknown engine "oracle"; use one of bigquery, duckdb, mysql, postgres, snowflake, spark`}},
		{"default target", "name = \"t\"\ndefault_target = \"locl\"\n[targets.local]\nengine = \"duckdb\"\n", []string{`project.toml:2: default_target "locl" is not a declared target; did you mean "local"?`}},
		{"source schema", baseToml + "[sources.raw]\ntables = [\"a\"]\n", []string{`project.toml:7: [sources.raw] needs schema = "..."`}},
		{"bad value models", baseToml + "[models]\nmaterialized = \"tabel\"\n", []string{`project.toml:8: materialized = "tabel" is not valid; did you mean "table"? (one of view, table, incremental, ephemeral)`}},
		{"bad value folder", baseToml + "[models.\"a/*\"]\nschema = \"x\"\ngranularity = \"weekly\"\n", []string{`project.toml:9: granularity = "weekly" is not valid; use one of hour, day, month, year`}},
		{"bad check folder", baseToml + "[models.\"a/*\"]\n[models.\"a/*\".checks]\nuniqe = [\"x\"]\n", []string{`project.toml:9: unknown check "uniqe"; did you mean "unique"?`}},
		{"bad start", baseToml + "[models]\nstart = \"July\"\n", []string{`project.toml:8: start = "July" is not a date or timestamp; write it as 2026-07-01 or 2026-07-01T13:00:00`}},
		{"several", "defualt_target = 1\n[targets.a]\nengine = \"duckdb\"\n[run]\nthreads = 1\nthreds = 2\n", []string{
			`project.toml:1: name is required`,
			`project.toml:1: unknown key "defualt_target"; did you mean "default_target"?`,
			`project.toml:6: unknown key "run.threds"; did you mean "threads"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(writeProject(t, map[string]string{"project.toml": tt.toml}))
			checkErrors(t, err, tt.want)
		})
	}
}

// checkErrors asserts err is a diag.List of positioned errors whose lines
// start with want, one for one.
func checkErrors(t *testing.T, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	if !errors.Is(err, diag.ErrBadInput) {
		t.Errorf("%v is not a bad-input error (exit code 2)", err)
	}
	var list diag.List
	if !errors.As(err, &list) {
		t.Fatalf("%T is not a diag.List", err)
	}
	if len(list) != len(want) {
		t.Errorf("got %d errors, want %d:\n%v", len(list), len(want), err)
	}
	for i, e := range list {
		if e.Path == "" {
			t.Errorf("error without a path: %v", e)
		}
		if i < len(want) && !strings.HasPrefix(e.Error(), want[i]) {
			t.Errorf("error %d\n got %s\nwant %s…", i, e, want[i])
		}
	}
}

// TestHeaderErrors: mistakes in a model header name the model file and the
// line in it (the header starts on line 2 here).
func TestHeaderErrors(t *testing.T) {
	tests := []struct {
		name, header string
		want         []string
	}{
		{"malformed", "materialized = table", []string{`models/m.sql:3:16: invalid TOML: expected value but found "table" instead (key materialized); put text in quotes: materialized = "table"`}},
		{"unclosed list", "tags = [\"a\",\n", []string{`models/m.sql:4:14: invalid TOML: unexpected EOF; expected value (key tags); a quote, [ or { opened here is not closed`}},
		{"invalid date", "start = 2026-13-01", []string{`models/m.sql:3:9: invalid TOML: invalid datetime: "2026-13-01" (key start); write dates as quoted text: start = "2026-07-01"`}},
		{"unknown key", "materialized = \"table\"\npartiton_by = \"d\"", []string{`models/m.sql:4: unknown key "partiton_by"; did you mean "partition_by"?`}},
		{"unknown key far", "zzz = 1", []string{`models/m.sql:3: unknown key "zzz"; valid keys: alias, allow_append,`}},
		{"unknown watermark key", "[watermark]\ncolumn = \"u\"\nlga = \"1m\"", []string{`models/m.sql:5: unknown key "watermark.lga"; did you mean "lag"?`}},
		{"wrong type int", "lookback = \"x\"", []string{`models/m.sql:3: lookback must be a whole number, not a quoted string; write it like lookback = 1`}},
		{"wrong type float", "lookback = 1.5", []string{`models/m.sql:3: lookback must be a whole number, not a decimal number`}},
		{"wrong type bool", "allow_append = \"yes\"", []string{`models/m.sql:3: allow_append must be true or false, not a quoted string; write it like allow_append = true`}},
		{"wrong type date", "start = 2026-07-01", []string{`models/m.sql:3: start must be a quoted string, not an unquoted date or time (put it in quotes); write it like start = "2026-07-01"`}},
		{"wrong type list", "tags = 1", []string{`models/m.sql:3:8: tags must be a quoted string or a list of them, not a whole number; write it like tags = ["daily"]`}},
		{"wrong type list item", "unique_key = [\"a\", 2]", []string{`models/m.sql:3:15: unique_key must be a list of quoted strings, not a list holding a whole number; write it like unique_key = ["event_key"]`}},
		{"wrong type table", "watermark = \"updated_at\"", []string{`models/m.sql:3: watermark must be a table, not a quoted string; write it like watermark = { column = "updated_at", lag = "15m" }`}},
		{"scalar checks", "checks = [\"unique\"]", []string{`models/m.sql:3: checks must be a table: [checks] with one check per line: min_rows = 1`}},
		{"bad materialized", "materialized = \"tabel\"", []string{`models/m.sql:3: materialized = "tabel" is not valid; did you mean "table"?`}},
		{"bad strategy", "strategy = \"upsert\"", []string{`models/m.sql:3: strategy = "upsert" is not valid; use one of delete_insert, merge, insert_overwrite, append`}},
		{"bad granularity", "granularity = \"dya\"", []string{`models/m.sql:3: granularity = "dya" is not valid; did you mean "day"?`}},
		{"negative lookback", "lookback = -1", []string{`models/m.sql:3: lookback must be 0 or more`}},
		{"bad start", "\nstart = \"2026-13-01\"", []string{`models/m.sql:4: start = "2026-13-01" is not a date or timestamp`}},
		{"watermark kind", "watermark = { column = \"x\", kind = \"lsn\" }", []string{`models/m.sql:3: watermark kind "lsn" is not valid; use "timestamp" or "sequence"`}},
		{"watermark lag", "watermark = { column = \"x\", lag = \"15 minutes\" }", []string{`models/m.sql:3: watermark duration "15 minutes" is not valid; write it as 15m, 1h or 90s`}},
		{"unknown check", "[checks]\nmin_rows = 1\nuniqe = [\"x\"]", []string{`models/m.sql:5: unknown check "uniqe"; did you mean "unique"?`}},
		{"unknown check far", "[checks]\nfreshness = \"1h\"", []string{`models/m.sql:4: unknown check "freshness"; use one of accepted_values, expect,`}},
		{"several", "materialized = \"tabel\"\ngranularity = \"days\"", []string{
			`models/m.sql:3: materialized = "tabel" is not valid`,
			`models/m.sql:4: granularity = "days" is not valid; did you mean "day"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "-- a model\n/* idemc\n" + tt.header + "\n*/\nSELECT 1 AS x\n"
			_, err := parseModel("models/m.sql", text, &layer{defined: map[string]bool{}}, nil)
			checkErrors(t, err, tt.want)
		})
	}
}

func TestModelFileErrors(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"unclosed header", map[string]string{"models/a.sql": "\n/* idemc\nmaterialized = \"table\"\nSELECT 1\n"},
			[]string{`models/a.sql:2: the settings comment /* idemc is not closed: end it with */ before the SELECT`}},
		{"bad file name", map[string]string{"models/my-model.sql": "SELECT 1\n"},
			[]string{`models/my-model.sql: model name "my-model" must be letters, digits and underscores (it becomes a table name); rename the file`}},
		{"duplicate model", map[string]string{"models/a/x.sql": "SELECT 1\n", "models/b/x.sql": "SELECT 2\n"},
			[]string{`models/b/x.sql:1: duplicate model name "x": also defined in models/a/x.sql; rename one of the files`}},
		{"seed named like a model", map[string]string{"models/x.sql": "SELECT 1\n", "seeds/x.csv": "a\n1\n"},
			[]string{`seeds/x.csv:1: seed "x" has the same name as model models/x.sql; rename one of them`}},
		{"binary model", map[string]string{"models/a.sql": "SELECT 1\n\x00\x01PNG"},
			[]string{`models/a.sql:2: a NUL byte: this is a binary file, not SQL text; models/ holds UTF-8 .sql text files only: save it as UTF-8 or move it out of models/`}},
		{"latin-1 model", map[string]string{"models/a.sql": "SELECT 1\n\n-- caf\xe9\n"},
			[]string{`models/a.sql:3: byte 0xe9 is not UTF-8; models/ holds UTF-8 .sql text files only`}},
		{"binary macro and test", map[string]string{"macros/m.sql": "\xff\xd8\xff", "tests/t.sql": "SELECT 1\x00"},
			[]string{`macros/m.sql:1: byte 0xff is not UTF-8; macros/ holds UTF-8 .sql text files only`, `tests/t.sql:1: a NUL byte`}},
		{"errors in two files", map[string]string{
			"models/a.sql": "/* idemc\nlookback = \"x\"\n*/\nSELECT 1\n",
			"models/b.sql": "/* idemc\nstrategy = \"merj\"\n*/\nSELECT 1\n"},
			[]string{`models/a.sql:2: lookback must be a whole number`, `models/b.sql:2: strategy = "merj" is not valid; did you mean "merge"?`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"project.toml": baseToml}
			for k, v := range tt.files {
				files[k] = v
			}
			_, err := Load(writeProject(t, files))
			checkErrors(t, err, tt.want)
		})
	}
}

func TestNoProject(t *testing.T) {
	_, err := Load(t.TempDir())
	if err == nil || !errors.Is(err, diag.ErrBadInput) || !strings.Contains(err.Error(), "no project.toml in ") || !strings.Contains(err.Error(), "--project") {
		t.Fatalf("Load of an empty folder: %v", err)
	}
}

func TestLoadProject(t *testing.T) {
	p := load(t, map[string]string{
		"project.toml": baseToml + `state_schema = "ops"
threads = 4
[targets.pg]
engine = "postgres"
dsn = "${PG_DSN}"
schema = "analytics"
[sources.raw]
schema = "raw"
tables = ["events", "users"]
[seeds]
schema = "raw"
[vars]
source_system = "shop"
limit = 3
[run]
threads = 8
`,
		"models/b.sql":       "SELECT 1\n",
		"models/x/a.sql":     "SELECT 1\n",
		"macros/m.sql":       "{% macro m() %}1{% endmacro %}\n",
		"tests/t.sql":        "SELECT 1 WHERE false\n",
		"seeds/events.csv":   "a\n1\n",
		"models/notes.md":    "not a model\n",
		"seeds/README.txt":   "not a seed\n",
		"models/x/y/c.sql":   "SELECT 1\n",
		"macros/sub/n.sql":   "{% macro n() %}2{% endmacro %}\n",
		"tests/sub/u.sql":    "SELECT 1 WHERE false\n",
		"seeds/sub/more.csv": "a\n1\n",
	})
	if p.Name != "t" || p.DefaultTarget != "local" || p.Threads != 8 || p.SeedSchema != "raw" {
		t.Errorf("project = %+v", p)
	}
	local := p.Targets["local"]
	if local.Engine != "duckdb" || local.Schema != "main" || local.StateSchema != "ops" || local.Settings["path"] != "target/w.duckdb" || local.Threads != 4 {
		t.Errorf("local = %+v", local)
	}
	if local.Line != 3 || p.Targets["pg"].Line != 9 {
		t.Errorf("target lines = %d, %d; want 3, 9", local.Line, p.Targets["pg"].Line)
	}
	if pg := p.Targets["pg"]; pg.Settings["dsn"] != "${PG_DSN}" {
		t.Errorf("pg dsn resolved at load time: %+v", pg)
	}
	if s := p.Sources["raw"]; s.Schema != "raw" || !reflect.DeepEqual(s.Tables, []string{"events", "users"}) {
		t.Errorf("source = %+v", s)
	}
	if p.Vars["source_system"] != "shop" || p.Vars["limit"] != int64(3) {
		t.Errorf("vars = %v", p.Vars)
	}
	var names []string
	for _, m := range p.Models {
		names = append(names, m.Name+"="+m.Path)
	}
	if want := []string{"a=models/x/a.sql", "b=models/b.sql", "c=models/x/y/c.sql"}; !reflect.DeepEqual(names, want) {
		t.Errorf("models = %v, want %v", names, want)
	}
	if len(p.Macros) != 2 || p.Macros[0].Path != "macros/m.sql" || p.Macros[1].Path != "macros/sub/n.sql" {
		t.Errorf("macros = %+v", p.Macros)
	}
	if len(p.Tests) != 2 || p.Tests[0].Path != "tests/sub/u.sql" && p.Tests[0].Path != "tests/t.sql" {
		t.Errorf("tests = %+v", p.Tests)
	}
	if len(p.Seeds) != 2 || p.Seeds[0].Name != "events" || p.Seeds[1].Name != "more" {
		t.Errorf("seeds = %+v", p.Seeds)
	}
}

func TestFolderMatches(t *testing.T) {
	tests := []struct {
		pattern, dir, name string
		want               bool
	}{
		{"*", "", "a", true},
		{"*", "x/y", "a", true},
		{"staging/*", "staging", "a", true},
		{"staging/*", "staging/deep", "a", true},
		{"staging", "staging", "a", true},
		{"staging/**", "staging/deep", "a", true},
		{"staging/*", "stagingish", "a", false},
		{"staging/*", "", "a", false},
		{"marts/*", "staging", "a", false},
		{"staging/a", "staging", "a", true},
		{"*/deep", "staging/deep", "a", true},
	}
	for _, tt := range tests {
		if got := folderMatches(tt.pattern, tt.dir, tt.name); got != tt.want {
			t.Errorf("folderMatches(%q, %q, %q) = %v, want %v", tt.pattern, tt.dir, tt.name, got, tt.want)
		}
	}
}

// TestBrokenLink: a model, macro or seed file that is a link to nothing
// is an error naming it; the files after it in the walk still load (the
// walk used to stop at it without a word).
func TestBrokenLink(t *testing.T) {
	dir := writeProject(t, map[string]string{"project.toml": baseToml,
		"models/a.sql": "SELECT 1\n", "models/c.sql": "SELECT 2 AS x\n",
		"macros/a.sql": "{% macro one() %}1{% endmacro %}\n", "macros/c.sql": "{% macro two() %}2{% endmacro %}\n",
		"seeds/sa.csv": "x\n1\n", "seeds/sc.csv": "x\n2\n"})
	var want []string
	for _, f := range []string{"macros/b.sql", "models/b.sql", "seeds/sb.csv"} {
		if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
		want = append(want, f+": stat "+filepath.Join(dir, f)+": no such file or directory; remove it or make it a readable file")
	}
	p, err := Load(dir)
	checkErrors(t, err, want)
	var names []string
	for _, m := range p.Models {
		names = append(names, m.Name)
	}
	for _, m := range p.Macros {
		names = append(names, m.Path)
	}
	for _, s := range p.Seeds {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, ","); got != "a,c,macros/a.sql,macros/c.sql,sa,sc" {
		t.Errorf("loaded %s, want a,c,macros/a.sql,macros/c.sql,sa,sc", got)
	}
}

// TestSpecialFiles: a FIFO or a link to a device under models/ or seeds/
// is refused by name instead of blocking the load or reading without end.
func TestSpecialFiles(t *testing.T) {
	dir := writeProject(t, map[string]string{"project.toml": baseToml, "models/ok.sql": "SELECT 1\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "models", "fifo.sql"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "seeds"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "seeds", "zero.csv")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := Load(dir); done <- err }()
	select {
	case err := <-done:
		checkErrors(t, err, []string{
			"models/fifo.sql: not a regular file (p---------); models/ holds .sql files only: remove it",
			"seeds/zero.csv: not a regular file (D",
		})
	case <-time.After(10 * time.Second):
		t.Fatal("Load blocked on a special file")
	}
}
