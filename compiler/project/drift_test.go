package project

import (
	"reflect"
	"testing"
)

// TestDriftRules: a header's [drift] typed with its defaults; project.toml's
// [drift] under it, merged key by key (row_count's keys too); "off".
func TestDriftRules(t *testing.T) {
	def := defaultRowCount
	tests := []struct {
		name, project, header string
		want                  *Drift
	}{
		{"none", "", "", nil},
		{"header defaults", "", "[drift]\nrow_count = {}\nzero_rows = \"error\"", &Drift{RowCount: &def, ZeroRows: "error"}},
		{"header values", "", "[drift]\nrow_count = { window = 7, min_ratio = 0.8, max_ratio = 3, severity = \"error\" }",
			&Drift{RowCount: &RowCountRule{Window: 7, MinRatio: 0.8, MaxRatio: 3, Severity: "error"}}},
		{"project default", "[drift]\nzero_rows = \"warn\"\n", "", &Drift{ZeroRows: "warn"}},
		{"header wins by key", "[drift]\nzero_rows = \"warn\"\nrow_count = { window = 30 }\n", "[drift]\nzero_rows = \"error\"\nrow_count = { severity = \"error\" }",
			&Drift{ZeroRows: "error", RowCount: &RowCountRule{Window: 30, MinRatio: 0.5, MaxRatio: 2, Severity: "error"}}},
		{"header turns off", "[drift]\nzero_rows = \"warn\"\nrow_count = {}\n", "[drift]\nrow_count = \"off\"", &Drift{ZeroRows: "warn"}},
		{"all off", "[drift]\nzero_rows = \"warn\"\n", "[drift]\nzero_rows = \"off\"", nil},
		{"[models] over [drift]", "[drift]\nzero_rows = \"warn\"\n[models.drift]\nzero_rows = \"error\"\n", "", &Drift{ZeroRows: "error"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := "/* idemc\nmaterialized = \"table\"\n" + tt.header + "\n*/\nSELECT 1 AS x\n"
			p := load(t, map[string]string{"project.toml": baseToml + tt.project, "models/m.sql": m})
			got := model(t, p, "m").Drift
			if got != nil {
				got.Pos = Pos{}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("drift %+v (row_count %+v), want %+v", got, rowCountOf(got), tt.want)
			}
		})
	}
}

func rowCountOf(d *Drift) *RowCountRule {
	if d == nil {
		return nil
	}
	return d.RowCount
}

// TestDriftErrors: every bad key or value of [drift] names its file and
// line and says what to write.
func TestDriftErrors(t *testing.T) {
	tests := []struct {
		name, header string
		want         []string
	}{
		{"zero_rows value", "[drift]\nzero_rows = \"fail\"", []string{`models/m.sql:4: drift.zero_rows = "fail" is not valid; use "error", "warn" or "off"`}},
		{"unknown key", "[drift]\nrow_cuont = {}", []string{`models/m.sql:4: unknown key "row_cuont" in [drift]; did you mean "row_count"?`}},
		{"unknown row_count key", "[drift]\nrow_count = { windo = 3 }", []string{`models/m.sql:4: unknown key "windo" in drift.row_count; did you mean "window"?`}},
		{"window too small", "[drift]\nrow_count = { window = 2 }", []string{`models/m.sql:4: drift.row_count.window = 2 is not valid; use a whole number of partitions from 3 to 1000: window = 14`}},
		{"window text", "\n[drift]\nrow_count = { window = \"14\" }", []string{`models/m.sql:5: drift.row_count.window = "14" is not valid`}},
		{"negative ratio", "[drift]\nrow_count = { min_ratio = -1 }", []string{`models/m.sql:4: drift.row_count.min_ratio = -1 is not valid; use a number of 0 or more: min_ratio = 0.5`}},
		{"ratios crossed", "[drift]\nrow_count = { min_ratio = 3 }", []string{`models/m.sql:4: drift.row_count: min_ratio 3 is above max_ratio 2; the row count could never be in bounds`}},
		{"severity", "[drift]\nrow_count = { severity = \"fatal\" }", []string{`models/m.sql:4: drift.row_count.severity = "fatal" is not valid; use "error" or "warn"`}},
		{"row_count scalar", "[drift]\nrow_count = 14", []string{`models/m.sql:4: drift.row_count must be a table or "off"`}},
		{"drift scalar", "drift = \"on\"", []string{`models/m.sql:3: drift must be a table: [drift] with row_count = {`}},
		{"on a view", "materialized = \"view\"\n[drift]\nzero_rows = \"warn\"", []string{`models/m.sql:4: [drift] applies to tables and incremental models, whose units write rows; remove it from this view`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "-- a model\n/* idemc\n" + tt.header + "\n*/\nSELECT 1 AS x\n"
			_, err := parseModel("models/m.sql", text, &layer{defined: map[string]bool{}}, nil)
			checkErrors(t, err, tt.want)
		})
	}
}

// TestProjectDriftErrors: project.toml's [drift] is checked once, at its
// own line.
func TestProjectDriftErrors(t *testing.T) {
	root := writeProject(t, map[string]string{"project.toml": baseToml + "\n[drift]\nzero_rows = \"maybe\"\n", "models/m.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x\n"})
	_, err := Load(root)
	checkErrors(t, err, []string{`project.toml:9: drift.zero_rows = "maybe" is not valid; use "error", "warn" or "off"`})
}

// TestModelsDriftErrors: a [models] or folder layer's drift table is
// checked at load too, at its line.
func TestModelsDriftErrors(t *testing.T) {
	for _, tt := range []struct{ toml, want string }{
		{"\n[models.drift]\nzero_rows = \"fail\"\n", `project.toml:9: drift.zero_rows = "fail" is not valid`},
		{"\n[models.\"staging/*\"]\nschema = \"s\"\n[models.\"staging/*\".drift]\nrow_count = { window = 0 }\n", `project.toml:11: drift.row_count.window = 0 is not valid`},
	} {
		root := writeProject(t, map[string]string{"project.toml": baseToml + tt.toml, "models/m.sql": "/* idemc\nmaterialized = \"table\"\n*/\nSELECT 1 AS x\n"})
		_, err := Load(root)
		checkErrors(t, err, []string{tt.want})
	}
}
