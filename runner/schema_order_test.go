package runner

import (
	"strings"
	"testing"

	"github.com/idemc/idemc/plan"
)

// TestAlteredColumns: the destination's column order after a column
// change, which a positional insert (Spark's REPLACE WHERE) selects in.
func TestAlteredColumns(t *testing.T) {
	dest := []plan.Column{{Name: "a"}, {Name: "B"}, {Name: "c"}}
	diff := schemaDiff{added: []plan.Column{{Name: "x"}}, removed: []string{"b"}}
	for _, tc := range []struct{ mode, want string }{
		{"append_new_columns", "a,B,c,x"},
		{"sync_all_columns", "a,c,x"},
		{"ignore", "a,B,c"},
	} {
		if got := strings.Join(alteredColumns(tc.mode, dest, diff), ","); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.mode, got, tc.want)
		}
	}
}
