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
		{"INTEGER", "INT64", true},
		{"INTEGER", "FLOAT", false},
		{"FLOAT", "FLOAT64", true},
		{"NUMERIC", "BIGNUMERIC", false},
		{"STRING", "STRING", true},
		{"STRING", "BYTES", false},
		{"BOOLEAN", "BOOL", true},
		{"TIMESTAMP", "DATETIME", false},
		{"DATE", "DATE", true},
		{"RECORD", "STRUCT", true},
		{"INTEGER", "", true},
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
