package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// A dialect comparing types by family: ints, text.
var testDialect = sqlgen.Gen{S: sqlgen.Spelling{TypeFamily: sqlgen.Families(map[string][]string{
	"int": {"INT", "INTEGER"}, "bigint": {"BIGINT"}, "text": {"TEXT", "VARCHAR"},
}, false)}}

// familyDialect is a Dialect that only compares types.
type familyDialect struct {
	adapters.Dialect
	g sqlgen.Gen
}

func (d familyDialect) SameType(a, b string) bool { return d.g.SameType(a, b) }

func TestDiffColumns(t *testing.T) {
	d := familyDialect{g: testDialect}
	dest := []plan.Column{{Name: "id", Type: "INTEGER"}, {Name: "Name", Type: "VARCHAR"}, {Name: "gone", Type: "INT"}, {Name: "odd", Type: "USER-DEFINED"}}
	batch := []plan.Column{{Name: "ID", Type: "BIGINT"}, {Name: "name", Type: "TEXT"}, {Name: "new", Type: "INT"}, {Name: "odd", Type: "INT"}}
	got := diffColumns(d, dest, batch)
	if len(got.added) != 1 || got.added[0].Name != "new" {
		t.Errorf("added: %v", got.added)
	}
	if len(got.removed) != 1 || got.removed[0] != "gone" {
		t.Errorf("removed: %v", got.removed)
	}
	// id changed from INTEGER to BIGINT, named as the destination spells it;
	// VARCHAR vs TEXT and an unknown type are no change.
	if len(got.retyped) != 1 || got.retyped[0] != (plan.ColumnChange{Name: "id", From: "INTEGER", To: "BIGINT"}) {
		t.Errorf("retyped: %v", got.retyped)
	}
}

func TestSchemaRefusal(t *testing.T) {
	retyped := schemaDiff{retyped: []plan.ColumnChange{{Name: "amount", From: "BIGINT", To: "TEXT"}}}
	added := schemaDiff{added: []plan.Column{{Name: "y"}}, removed: []string{"x"}}
	both := schemaDiff{added: added.added, retyped: retyped.retyped}
	for _, tc := range []struct {
		mode string
		diff schemaDiff
		want []string // substrings; nil means no error
	}{
		{"fail", retyped, []string{"model m:", "column amount changed type from BIGINT in the destination to TEXT in the model", `on_schema_change is "fail"`, `set on_schema_change = "sync_all_columns" or rebuild with --full-refresh`}},
		{"fail", added, []string{"new columns y", "missing columns x", `"append_new_columns" or "sync_all_columns", or rebuild with --full-refresh`}},
		{"append_new_columns", added, nil},
		{"append_new_columns", retyped, []string{"column amount changed type", `on_schema_change is "append_new_columns"`, `"sync_all_columns" or rebuild`}},
		// append_new_columns would add y, but not retype amount: only the type is named.
		{"append_new_columns", both, []string{"(column amount changed type from BIGINT in the destination to TEXT in the model)"}},
		{"sync_all_columns", both, nil},
	} {
		err := schemaRefusal("m", tc.mode, tc.diff)
		if tc.want == nil {
			if err != nil {
				t.Errorf("%s %+v: unexpected %v", tc.mode, tc.diff, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %+v: no error", tc.mode, tc.diff)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tc.mode, err, w)
			}
		}
	}
}
