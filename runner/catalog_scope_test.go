package runner

import (
	"fmt"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestSchemasOf: the catalog read lists the schemas of what the run looks
// up, a relation without a schema in the default schema; with no default
// schema known such a relation could live anywhere, so every schema is
// listed, as it is for no scope at all.
func TestSchemasOf(t *testing.T) {
	rel := func(schema, name string) plan.Relation { return plan.Relation{Schema: schema, Name: name} }
	for _, tc := range []struct {
		name, def string
		scope     []plan.Relation
		want      string
	}{
		{"no scope", "main", nil, "[]"},
		{"sorted, once, lower case", "main", []plan.Relation{rel("B", "x"), rel("a", "y"), rel("b", "z")}, "[a b]"},
		{"default schema", "main", []plan.Relation{rel("", "x"), rel("a", "y")}, "[a main]"},
		{"no default known", "", []plan.Relation{rel("", "x"), rel("a", "y")}, "[]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := emptyState()
			s.defaultSchema = tc.def
			got := s.schemasOf(tc.scope)
			if fmt.Sprint(got) != tc.want || (tc.want == "[]") != (got == nil) {
				t.Fatalf("schemasOf = %#v, want %s (nil: every schema)", got, tc.want)
			}
		})
	}
}
