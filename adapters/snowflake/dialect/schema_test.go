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
		{"NUMBER(38, 0)", "NUMBER(38, 0)", true},
		{"NUMBER(38, 0)", "FIXED", true},          // no precision reported: the family decides
		{"NUMBER(38, 0)", "NUMBER(10, 2)", false}, // the scale would be lost
		{"NUMBER(12, 2)", "NUMBER(10, 2)", true},
		{"NUMBER(38, 0)", "TEXT", false},
		{"TEXT", "TEXT", true},
		{"TEXT", "VARCHAR", true},
		{"FLOAT", "REAL", true},
		{"TIMESTAMP_NTZ", "TIMESTAMP_NTZ", true},
		{"TIMESTAMP_NTZ", "TIMESTAMP_TZ", false},
		{"DATE", "TIMESTAMP_NTZ", false},
		{"VARIANT", "OBJECT", false},
		{"GEOGRAPHY", "TEXT", true}, // unknown to the dialect
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
