package project

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

// parseHeader reads one model file with no project layers.
func parseHeader(t *testing.T, header string) (*Model, string) {
	t.Helper()
	m, err := parseModel("models/m.sql", "/* idemc\n"+header+"*/\nSELECT 1 AS a\n", &layer{defined: map[string]bool{}}, nil)
	if err != nil {
		return m, err.Error()
	}
	return m, ""
}

// TestSettle: the settings that depend on each other are checked at load,
// at the line that set them, and the defaults they imply are filled.
func TestSettle(t *testing.T) {
	day := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name, header string
		want         Settled
		err          string
	}{
		{"view", "", Settled{}, ""},
		{"view granularity kept", "granularity = \"hour\"\n", Settled{Granularity: "hour"}, ""},
		{"partitioned", "materialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01T13:00:00\"\n",
			Settled{Strategy: "delete_insert", Granularity: "day", FirstPartition: day}, ""},
		{"hourly", "materialized = \"incremental\"\npartition_by = \"d\"\ngranularity = \"hour\"\nstart = \"2026-07-01T13:30:00\"\nstrategy = \"insert_overwrite\"\n",
			Settled{Strategy: "insert_overwrite", Granularity: "hour", FirstPartition: day.Add(13 * time.Hour)}, ""},
		{"keyed", "materialized = \"incremental\"\nunique_key = \"k\"\n", Settled{Strategy: "merge"}, ""},
		{"append", "materialized = \"incremental\"\nstrategy = \"append\"\nallow_append = true\n", Settled{Strategy: "append"}, ""},
		{"not incremental", "strategy = \"merge\"\nlookback = 2\n", Settled{},
			"models/m.sql:2: strategy applies only to incremental models; add materialized = \"incremental\" or remove strategy\n" +
				"models/m.sql:3: lookback applies only to incremental models; add materialized = \"incremental\" or remove lookback"},
		{"no start", "materialized = \"incremental\"\npartition_by = \"d\"\n", Settled{},
			"models/m.sql:3: partitioned model needs start = \"2026-07-01\" (its first partition)"},
		{"no key", "materialized = \"incremental\"\n", Settled{},
			"models/m.sql:2: incremental model needs partition_by or unique_key to know what a rerun replaces (or strategy = \"append\" with allow_append = true)"},
		{"merge without key", "materialized = \"incremental\"\nstrategy = \"merge\"\n", Settled{},
			"models/m.sql:3: strategy = \"merge\" needs unique_key = [\"...\"]"},
		{"overwrite without partition", "materialized = \"incremental\"\nstrategy = \"insert_overwrite\"\nunique_key = \"k\"\n", Settled{},
			"models/m.sql:3: strategy = \"insert_overwrite\" needs partition_by"},
		{"delete_insert without either", "materialized = \"incremental\"\nstrategy = \"delete_insert\"\n", Settled{},
			"models/m.sql:3: strategy = \"delete_insert\" needs partition_by or unique_key"},
		{"watermark and merge columns", "materialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\nwatermark = { column = \"u\" }\nmerge_update_columns = [\"a\"]\nmerge_exclude_columns = [\"b\"]\n", Settled{},
			"models/m.sql:5: watermark is for unpartitioned models; a partitioned model reads its window through start and end\n" +
				"models/m.sql:6: set merge_update_columns or merge_exclude_columns, not both"},
		{"lineage on a table", "materialized = \"table\"\nlineage_columns = true\n", Settled{Lineage: true}, ""},
		{"lineage on an incremental model", "materialized = \"incremental\"\nunique_key = \"k\"\nlineage_columns = true\n", Settled{Strategy: "merge", Lineage: true}, ""},
		{"lineage off", "materialized = \"table\"\nlineage_columns = false\n", Settled{}, ""},
		{"lineage on a view", "lineage_columns = true\n", Settled{},
			"models/m.sql:2: lineage_columns applies to models that write rows (table or incremental); a view has no rows of its own: remove lineage_columns or materialize the model as a table"},
		// A setting that does not read is reported alone: no cross-setting
		// error about the same model.
		{"bad value alone", "materialized = \"incrementl\"\npartition_by = \"d\"\n", Settled{},
			"models/m.sql:2: materialized = \"incrementl\" is not valid; did you mean \"incremental\"? (one of view, table, incremental, ephemeral)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseHeader(t, tt.header)
			if err != tt.err {
				t.Fatalf("error\n got %q\nwant %q", err, tt.err)
			}
			if err == "" && !reflect.DeepEqual(m.Settled, tt.want) {
				t.Errorf("settled\n got %+v\nwant %+v", m.Settled, tt.want)
			}
		})
	}
}

// TestLineageLayers: lineage_columns from [models] applies to every model
// that writes rows and skips views and ephemeral models without an error;
// a model header turns it off.
func TestLineageLayers(t *testing.T) {
	base := &layer{defined: map[string]bool{"lineage_columns": true}, cfg: ModelConfig{LineageColumns: true}}
	for _, tt := range []struct {
		header string
		want   bool
	}{
		{"materialized = \"table\"\n", true},
		{"materialized = \"incremental\"\npartition_by = \"d\"\nstart = \"2026-07-01\"\n", true},
		{"materialized = \"table\"\nlineage_columns = false\n", false},
		{"materialized = \"view\"\n", false},
		{"materialized = \"ephemeral\"\n", false},
	} {
		m, err := parseModel("models/m.sql", "/* idemc\n"+tt.header+"*/\nSELECT 1 AS a\n", base, nil)
		if err != nil {
			t.Fatalf("%q: %v", tt.header, err)
		}
		if m.Lineage != tt.want {
			t.Errorf("%q: lineage %v, want %v", tt.header, m.Lineage, tt.want)
		}
	}
}

// TestReadChecks: the [checks] table is typed at load, sorted by kind and
// column, each check positioned at its line; values of the wrong shape are
// refused there.
func TestReadChecks(t *testing.T) {
	at := func(line int) Pos { return Pos{"models/m.sql", line} }
	tests := []struct {
		name, checks string
		want         []Check
		err          string
	}{
		{"columns", "unique = \"id\"\nnot_null = { columns = [\"a\", \"b\"], severity = \"warn\" }\n", []Check{
			{Kind: "not_null", Name: "not_null(a, b)", Severity: "warn", Pos: at(4), Columns: []string{"a", "b"}},
			{Kind: "unique", Name: "unique(id)", Severity: "error", Pos: at(3), Columns: []string{"id"}},
		}, ""},
		{"accepted_values", "accepted_values = { severity = \"warn\", status = [\"ok\", \"void\"], kind = \"x\" }\n", []Check{
			{Kind: "accepted_values", Name: "accepted_values(kind)", Severity: "warn", Pos: at(3), Columns: []string{"kind"}, Values: []string{"x"}},
			{Kind: "accepted_values", Name: "accepted_values(status)", Severity: "warn", Pos: at(3), Columns: []string{"status"}, Values: []string{"ok", "void"}},
		}, ""},
		{"relations", "relationships = { user_id = \"raw.users.id\" }\nrow_count_matches = { source = \"stg\" }\n", []Check{
			{Kind: "relationships", Name: "relationships(user_id -> raw.users.id)", Severity: "error", Pos: at(3), Columns: []string{"user_id"}, Relation: "raw.users", RelationColumn: "id"},
			// The window column defaults to partition_by.
			{Kind: "row_count_matches", Name: "row_count_matches(stg)", Severity: "error", Pos: at(4), Relation: "stg", RelationColumn: "d"},
		}, ""},
		{"min_rows and expect", "min_rows = { value = 2, severity = \"warn\" }\nexpect = [\"sum(a) >= 0\", \"count(*) > 0\"]\n", []Check{
			{Kind: "expect", Name: "expect(sum(a) >= 0)", Severity: "error", Pos: at(4), Expr: "sum(a) >= 0", Index: 1},
			{Kind: "expect", Name: "expect(count(*) > 0)", Severity: "error", Pos: at(4), Expr: "count(*) > 0", Index: 2},
			{Kind: "min_rows", Name: "min_rows(2)", Severity: "warn", Pos: at(3), MinRows: 2},
		}, ""},
		{"bad severity", "unique = { value = \"a\", severity = \"fatal\" }\n", nil,
			"models/m.sql:3: checks.unique: severity \"fatal\" is not valid; use \"error\" or \"warn\""},
		{"bad shapes", "unique = []\naccepted_values = { status = 1 }\nrelationships = { a = \"nodot\" }\nmin_rows = -1\nexpect = 1\nrow_count_matches = { column = \"d\" }\n", nil,
			"models/m.sql:3: checks.unique must be a list of columns: unique = [\"a\", \"b\"]\n" +
				"models/m.sql:4: checks.accepted_values.status must be a list of values\n" +
				"models/m.sql:5: checks.relationships.a must name model.column, e.g. \"dim_users.user_id\"\n" +
				"models/m.sql:6: checks.min_rows must be a whole number: min_rows = 1 or min_rows = { value = 1, severity = \"warn\" }\n" +
				"models/m.sql:7: checks.expect must be a list of boolean aggregate expressions: expect = [\"sum(amount) >= 0\"]\n" +
				"models/m.sql:8: checks.row_count_matches needs a source: row_count_matches = { source = \"raw.staging_events\", column = \"event_date\" }"},
		{"not tables", "accepted_values = [\"a\"]\nrelationships = \"x\"\n", nil,
			"models/m.sql:3: checks.accepted_values must be a table: accepted_values = { status = [\"ok\", \"void\"] }\n" +
				"models/m.sql:4: checks.relationships must be a table: relationships = { user_id = \"dim_users.user_id\" }"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// partition_by set by a project layer: allowed on a view, and
			// the default window column of row_count_matches.
			base := &layer{defined: map[string]bool{"partition_by": true}, cfg: ModelConfig{PartitionBy: "d"}}
			m, err := parseModel("models/m.sql", "/* idemc\n[checks]\n"+tt.checks+"*/\nSELECT 1 AS a\n", base, nil)
			if err != nil {
				if err.Error() != tt.err {
					t.Fatalf("error\n got %q\nwant %q", err, tt.err)
				}
				return
			}
			if tt.err != "" {
				t.Fatalf("no error, want %q", tt.err)
			}
			if !reflect.DeepEqual(m.Checks, tt.want) {
				t.Errorf("checks\n got %+v\nwant %+v", m.Checks, tt.want)
			}
		})
	}
}

// TestCheckReads: a check naming a relation the project lacks, or an
// expect expression that is not one expression, is refused at load, at the
// check's line; models, seeds and declared source tables are known, and so
// is a model whose own file failed to load (reported once, for itself).
// Loaded again with the load cache, the same errors: a model whose
// expression was refused is not cached.
func TestCheckReads(t *testing.T) {
	dir, cache := writeProject(t, map[string]string{
		"project.toml":      baseToml + "[sources.raw]\nschema = \"raw\"\ntables = [\"ev\"]\n",
		"seeds/users.csv":   "id\n1\n",
		"models/broken.sql": "/* idemc\nmaterialized = 1\n*/\nSELECT 1 AS id\n",
		"models/ok.sql":     "SELECT 1 AS id\n",
		"models/a.sql": `/* idemc
[checks]
relationships = { a = "ok.id", b = "users.id", c = "raw.ev.id", d = "broken.id", e = "nomodel.id", f = "raw.nope.id" }
row_count_matches = { source = "missing" }
expect = ["count(*) > 0", "a; drop table x"]
*/
SELECT 1 AS a
`,
	}), t.TempDir()
	want := []string{
		`models/a.sql:3: checks.relationships: "nomodel" is neither a model, a seed nor a declared source table (source.table)`,
		`models/a.sql:3: checks.relationships: "raw.nope" is neither a model, a seed nor a declared source table (source.table)`,
		`models/a.sql:4: checks.row_count_matches: "missing" is neither a model, a seed nor a declared source table (source.table)`,
		`models/a.sql:5: checks.expect[2]: "a; drop table x" is not one SQL expression: ';' at byte 2 ends the statement; a check is one expression`,
	}
	for round := range 2 {
		_, err := LoadCached(dir, cache)
		var got []string
		for _, line := range strings.Split(fmt.Sprint(err), "\n") {
			if strings.HasPrefix(line, "models/a.sql") {
				got = append(got, line)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("load %d: errors of a.sql\n got %q\nwant %q\nall: %v", round+1, got, want, err)
		}
	}
}
