package sqlgen

import "testing"

func TestTypeName(t *testing.T) {
	for _, tc := range []struct{ in, base, params string }{
		{"decimal(10, 2)", "DECIMAL", "10,2"},
		{"character varying(20)", "CHARACTER VARYING", "20"},
		{"TIMESTAMP(6) WITH TIME ZONE", "TIMESTAMP WITH TIME ZONE", "6"},
		{"  double   precision ", "DOUBLE PRECISION", ""},
		{"INTEGER[]", "INTEGER[]", ""},
		{`STRUCT("a" INTEGER)`, `STRUCT("A" INTEGER)`, ""},
		{"", "", ""},
	} {
		base, params := TypeName(tc.in)
		if base != tc.base || params != tc.params {
			t.Errorf("TypeName(%q) = %q, %q; want %q, %q", tc.in, base, params, tc.base, tc.params)
		}
	}
}

func TestDecimalFits(t *testing.T) {
	for _, tc := range []struct {
		dest, batch string
		fits        bool
	}{
		{"DECIMAL(18,3)", "DECIMAL(18,3)", true},
		{"DECIMAL(18,3)", "DECIMAL(10,2)", true},
		{"DECIMAL(10,2)", "DECIMAL(18,3)", false},
		{"DECIMAL(10,2)", "DECIMAL(10,3)", false}, // a decimal more would round
		{"DECIMAL(10,4)", "DECIMAL(10,2)", false}, // two integer digits fewer
		{"NUMBER(38, 0)", "NUMBER(38, 0)", true},
		{"DECIMAL", "DECIMAL(10,2)", true}, // no parameters: nothing to compare
		{"VARCHAR", "VARCHAR", true},
	} {
		if got := DecimalFits(tc.dest, tc.batch); got != tc.fits {
			t.Errorf("DecimalFits(%q, %q) = %v, want %v", tc.dest, tc.batch, got, tc.fits)
		}
	}
}
