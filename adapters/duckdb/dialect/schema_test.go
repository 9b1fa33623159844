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
		{"INTEGER", "BIGINT", false}, // int4 vs int8 is a change
		{"BIGINT", "INTEGER", false},
		{"VARCHAR", "VARCHAR", true},
		{"INTEGER", "VARCHAR", false},
		{"TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", true}, // the catalog and the driver spell it apart
		{"TIMESTAMP", "TIMESTAMPTZ", false},
		{"DECIMAL(18,3)", "DECIMAL(18,3)", true},
		{"DECIMAL(18,3)", "DECIMAL(10,2)", true},  // the destination holds it
		{"DECIMAL(2,1)", "DECIMAL(4,2)", false},   // it does not: 10.25 would fail the insert
		{"DECIMAL(38,3)", "DECIMAL(38,4)", false}, // fewer decimals would round
		{"DOUBLE", "FLOAT", false},
		{"INTEGER[]", "INTEGER[]", true},
		{"INTEGER[]", "VARCHAR[]", false},
		{"INTEGER", "NULL", true}, // a bare NULL has no type to compare
		{"", "BIGINT", true},
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
