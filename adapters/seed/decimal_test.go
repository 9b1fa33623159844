package seed

import (
	"strings"
	"testing"
)

func TestParseKindDecimal(t *testing.T) {
	for _, c := range []struct {
		in, want, err string
	}{
		{in: "decimal(18,2)", want: "decimal(18,2)"},
		{in: "DECIMAL(18, 2)", want: "decimal(18,2)"},
		{in: "numeric(10,0)", want: "decimal(10,0)"},
		{in: "decimal(9)", want: "decimal(9,0)"},
		{in: "decimal(38,38)", want: "decimal(38,38)"},
		{in: "decimal(39,2)", err: "precision must be 1 to 38"},
		{in: "decimal(0,0)", err: "precision must be 1 to 38"},
		{in: "decimal(5,6)", err: "scale must be 0 to the precision 5"},
		{in: "decimal(a,b)", err: "whole numbers"},
		{in: "decimal", want: ""}, // not a decimal with bounds: not a kind
		{in: "double", want: "double"},
	} {
		k, ok, err := ParseKindErr(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.in, err, c.err)
			}
		case c.want == "":
			if ok || err != nil {
				t.Errorf("%s: %q %v %v, want not a kind", c.in, k, ok, err)
			}
		case err != nil || !ok || string(k) != c.want:
			t.Errorf("%s: %q %v %v, want %s", c.in, k, ok, err, c.want)
		}
	}
}

func TestParseDecimal(t *testing.T) {
	for _, c := range []struct {
		in   string
		p, s int
		want string // canonical text, or the error's substring after "!"
	}{
		{"12.3", 18, 2, "12.30"},
		{"-0.05", 18, 2, "-0.05"},
		{"+7", 5, 2, "7.00"},
		{"0", 5, 2, "0.00"},
		{"1e3", 6, 2, "1000.00"},
		{"007.10", 5, 2, "7.10"},
		{"99999999999999999999999999999999999999", 38, 0, "99999999999999999999999999999999999999"},
		{"12.345", 18, 2, "!more than 2 digits after the point"},
		{"1000", 5, 2, "!more than 3 digits before the point"},
		{"12.3x", 18, 2, "!not a decimal number"},
		{"NaN", 18, 2, "!not a decimal number"},
		{"1/3", 18, 2, "!not a decimal number"},
	} {
		d, err := ParseDecimal(c.in, c.p, c.s)
		if want, isErr := strings.CutPrefix(c.want, "!"); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("ParseDecimal(%q, %d, %d) = %v, %v; want error %q", c.in, c.p, c.s, d, err, want)
			}
			continue
		}
		if err != nil || d.String() != c.want {
			t.Errorf("ParseDecimal(%q, %d, %d) = %v, %v; want %s", c.in, c.p, c.s, d, err, c.want)
		}
		if v, _ := d.Value(); v != c.want {
			t.Errorf("Value() = %v, want %s", v, c.want)
		}
	}
}

func TestDecimalOfType(t *testing.T) {
	for typ, want := range map[string]string{
		"DECIMAL(18,2)": "decimal(18,2)", "numeric(18,2)": "decimal(18,2)", "NUMBER(38, 0)": "decimal(38,0)",
		"BIGNUMERIC(38,10)": "decimal(38,10)", "NUMERIC": "", "DOUBLE": "", "decimal(18)": "",
	} {
		k, ok := DecimalOfType(typ)
		if string(k) != want || ok != (want != "") {
			t.Errorf("DecimalOfType(%q) = %q %v, want %q", typ, k, ok, want)
		}
	}
}

// TestParseDeclaredDecimal: a decimal column keeps its exact values (never
// a float's), and a value that would round is an error at its line.
func TestParseDeclaredDecimal(t *testing.T) {
	types := map[string]Kind{"amount": DecimalKind(18, 2)}
	tb, errs := Parse([]byte("id,amount\n1,0.10\n2,\n3,1234567890123456.5\n"), types)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	var got []string
	for i := range tb.Rows {
		s, ok := tb.Text(i, 1)
		if !ok {
			s = "NULL"
		}
		got = append(got, s)
	}
	if strings.Join(got, " ") != "0.10 NULL 1234567890123456.50" {
		t.Errorf("values %v", got)
	}
	_, errs = Parse([]byte("id,amount\n1,0.105\n"), types)
	if len(errs) != 1 || errs[0].Line != 2 || !strings.Contains(errs[0].Msg, `column amount: "0.105" has more than 2 digits after the point`) {
		t.Errorf("errs = %v", errs)
	}
}
