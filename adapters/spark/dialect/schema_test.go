package dialect

import "testing"

// TestSameType: which destination and batch types on_schema_change treats
// as a type change on this engine (the batch's names come from the driver,
// the destination's from the catalog).
func TestSameType(t *testing.T) {
	d := NewDialect()
	for _, tc := range []struct {
		dest, batch string
		same        bool
	}{
		{"INTEGER", "INTEGER", true},
		{"INT", "INTEGER", true},
		{"INTEGER", "LONG", false},
		{"BIGINT", "LONG", true},
		{"STRING", "STRING", true},
		{"STRING", "INTEGER", false},
		{"DECIMAL(10, 2)", "DECIMAL(10, 2)", true},
		{"DECIMAL(10, 2)", "DECIMAL(12, 4)", false},
		{"TIMESTAMP", "TIMESTAMP_NTZ", false},
		{"DATE", "DATE", true},
		{"INTEGER", "VOID", true}, // a bare NULL
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
