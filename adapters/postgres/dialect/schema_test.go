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
		{"INTEGER", "INT4", true},
		{"INTEGER", "INT8", false}, // int4 vs int8 is a change
		{"BIGINT", "INT8", true},
		{"SMALLINT", "INT2", true},
		{"TEXT", "VARCHAR", true}, // text vs varchar is not
		{"CHARACTER VARYING", "TEXT", true},
		{"CHARACTER VARYING", "VARCHAR", true}, // lengths are not compared
		{"CHARACTER", "TEXT", true},
		{"TEXT", "INT4", false},
		{"NUMERIC", "NUMERIC", true},
		{"NUMERIC", "INT8", false},
		{"DOUBLE PRECISION", "FLOAT8", true},
		{"REAL", "FLOAT8", false},
		{"TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMP", true},
		{"TIMESTAMP WITH TIME ZONE", "TIMESTAMPTZ", true},
		{"TIMESTAMP WITHOUT TIME ZONE", "TIMESTAMPTZ", false},
		{"DATE", "TIMESTAMP", false},
		{"BOOLEAN", "BOOL", true},
		{"JSONB", "JSON", false},
		{"ARRAY", "_INT4", true}, // information_schema does not name the elements
		{"ARRAY", "INT4", false},
		{"USER-DEFINED", "TEXT", true}, // an enum or a domain: unknown
		{"TEXT", "", true},
	} {
		if got := d.SameType(tc.dest, tc.batch); got != tc.same {
			t.Errorf("SameType(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.same)
		}
	}
}
