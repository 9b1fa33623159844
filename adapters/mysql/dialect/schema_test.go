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
		{"INT", "INT", true},
		{"INT", "BIGINT", false},
		{"INT", "UNSIGNED INT", true}, // data_type does not say unsigned
		{"BIGINT", "UNSIGNED BIGINT", true},
		{"VARCHAR", "VARCHAR", true},
		{"TEXT", "VARCHAR", true}, // a VARCHAR column is added as TEXT
		{"LONGTEXT", "TEXT", true},
		{"VARCHAR", "INT", false},
		{"DECIMAL", "DECIMAL", true},
		{"DECIMAL", "DOUBLE", false},
		{"DATETIME", "DATETIME", true},
		{"DATETIME", "TIMESTAMP", false},
		{"DATE", "DATETIME", false},
		{"BLOB", "TEXT", false},
		{"INT", "NULL", true}, // a bare NULL: unknown
		{"INT", "", true},
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
