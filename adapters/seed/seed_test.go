package seed

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestInferKinds(t *testing.T) {
	cases := []struct {
		name   string
		values []string // one column; "" is NULL
		want   Kind
	}{
		{"integers", []string{"1", "-2", "0", "9223372036854775807"}, BigInt},
		{"minus zero", []string{"-0"}, BigInt},
		{"integers and decimals widen to double", []string{"1", "2.5", "-0.25"}, Double},
		{"leading zeros are text (zip codes)", []string{"00123", "12345"}, Text},
		{"one leading zero among numbers", []string{"1", "0042"}, Text},
		{"leading zero before a fraction", []string{"00.5"}, Text},
		{"zero point something is a number", []string{"0.5"}, Double},
		{"a plus sign is text (phone numbers)", []string{"+44", "12"}, Text},
		{"exponents are text", []string{"1e5"}, Text},
		{"a bare point is text", []string{"5.", ".5"}, Text},
		{"beyond int64 is text, not a lossy double", []string{"92233720368547758070"}, Text},
		{"inf and nan are text", []string{"inf", "NaN"}, Text},
		{"hex is text", []string{"0x10"}, Text},
		{"spaces make text", []string{" 1"}, Text},
		{"booleans", []string{"true", "false", "TRUE"}, Boolean},
		{"1 and 0 are numbers, not booleans", []string{"1", "0"}, BigInt},
		{"dates", []string{"2026-07-01", "2026-12-31"}, Date},
		{"an impossible date is text", []string{"2026-02-30"}, Text},
		{"timestamps", []string{"2026-07-01 10:00:00", "2026-07-01T11:00:00.123456"}, Timestamp},
		{"dates and timestamps widen to timestamp", []string{"2026-07-01", "2026-07-01 10:00:00"}, Timestamp},
		{"a time zone is text", []string{"2026-07-01T10:00:00Z"}, Text},
		{"minutes only is text", []string{"2026-07-01 10:00"}, Text},
		{"empty values are NULL and ignored", []string{"", "3", ""}, BigInt},
		{"only NULLs is text", []string{"", ""}, Text},
		{"mixed", []string{"1", "a"}, Text},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data := "c\n" + strings.Join(quoteEmpty(c.values), "\n") + "\n"
			tab, errs := Parse([]byte(data), nil)
			if errs != nil {
				t.Fatalf("errors: %v", errs)
			}
			if got := tab.Columns[0].Kind; got != c.want {
				t.Errorf("kind %s, want %s", got, c.want)
			}
		})
	}
}

// quoteEmpty writes an empty value as "" so the CSV reader keeps the line
// (it skips blank lines).
func quoteEmpty(vs []string) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		if v == "" {
			v = `""`
		}
		out[i] = v
	}
	return out
}

func TestParseTypedValues(t *testing.T) {
	data := "\xef\xbb\xbfi,f,b,d,ts,s,zip,empty\n" +
		"1,1.5,true,2026-07-01,2026-07-01 10:00:00,x,00123,\n" +
		"-2,2,False,2026-07-02,2026-07-02T11:00:00.5,\"a, \"\"quoted\"\"\nvalue\",04210,\n" +
		",,,,,,,\n"
	tab, errs := Parse([]byte(data), nil)
	if errs != nil {
		t.Fatal(errs)
	}
	var kinds []Kind
	for _, c := range tab.Columns {
		kinds = append(kinds, c.Kind)
	}
	wantKinds := []Kind{BigInt, Double, Boolean, Date, Timestamp, Text, Text, Text}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Errorf("kinds %v, want %v (BOM stripped: first column %q)", kinds, wantKinds, tab.Columns[0].Name)
	}
	day := func(d int) time.Time { return time.Date(2026, 7, d, 0, 0, 0, 0, time.UTC) }
	want := [][]any{
		{int64(1), 1.5, true, day(1), day(1).Add(10 * time.Hour), "x", "00123", nil},
		{int64(-2), 2.0, false, day(2), day(2).Add(11*time.Hour + 500*time.Millisecond), "a, \"quoted\"\nvalue", "04210", nil},
		{nil, nil, nil, nil, nil, nil, nil, nil},
	}
	if !reflect.DeepEqual(tab.Rows, want) {
		t.Errorf("rows:\n got %#v\nwant %#v", tab.Rows, want)
	}
	if s, ok := tab.Text(1, 4); !ok || s != "2026-07-02 11:00:00.5" {
		t.Errorf("Text(1, 4) = %q, %v", s, ok)
	}
	if s, ok := tab.Text(0, 3); !ok || s != "2026-07-01" {
		t.Errorf("Text(0, 3) = %q, %v", s, ok)
	}
	if _, ok := tab.Text(2, 0); ok {
		t.Errorf("Text of NULL is not NULL")
	}
}

func TestParseDeclaredKinds(t *testing.T) {
	data := "zip,amount,code,flag,at\n00123,+5,1,true,2026-07-01\n0042,007,2,false,2026-07-01 10:00:00\n"
	tab, errs := Parse([]byte(data), map[string]Kind{"ZIP": Text, "amount": BigInt, "code": Double, "at": Timestamp})
	if errs != nil {
		t.Fatal(errs)
	}
	got := fmt.Sprint(tab.Columns)
	want := "[{zip text true} {amount bigint true} {code double true} {flag boolean false} {at timestamp true}]"
	if got != want {
		t.Errorf("columns %s, want %s", got, want)
	}
	if tab.Rows[0][1] != int64(5) || tab.Rows[1][1] != int64(7) || tab.Rows[0][2] != 1.0 || tab.Rows[0][0] != "00123" {
		t.Errorf("rows %v", tab.Rows)
	}
	if at := tab.Rows[0][4].(time.Time); !at.Equal(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("a date in a timestamp column: %v", at)
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name  string
		data  string
		types map[string]Kind
		want  []string // "line[:col]: message prefix"
	}{
		{"empty file", "", nil, []string{"1: the file is empty: a seed starts with a header line"}},
		{"extra field", "a,b,c\n1,2,3\n1,2,3,4\n", nil, []string{"3: 4 fields, header has 3 (quote values that contain commas)"}},
		{"missing field", "a,b,c\n1,2\n", nil, []string{"2: 2 fields, header has 3 (every row needs a field for every column"}},
		{"every bad row", "a,b\n1,2,3\n1\n1,2\n", nil, []string{"2: 3 fields, header has 2", "3: 1 fields, header has 2"}},
		{"after a multi-line value", "a,b\n\"x\ny\",1\n1,2,3\n", nil, []string{"4: 3 fields, header has 2"}},
		{"empty column name", "a,,c\n1,2,3\n", nil, []string{"1: column 2 of the header has no name"}},
		{"trailing comma in header", "a,b,\n1,2,3\n", nil, []string{"1: column 3 of the header has no name"}},
		{"duplicate column", "id,name,ID\n1,2,3\n", nil, []string{`1: column "ID" appears twice in the header (columns 1 and 3)`}},
		{"unterminated quote", "a,b\n1,\"open\n2,3\n", nil, []string{"2: a quoted field that starts on this line is never closed (the file ends inside it)"}},
		{"quote closed too early in a multi-line field", "a,b\n1,\"x\ny\"z\n2,3\n", nil, []string{"2: a quoted field that starts on this line is not closed properly (line 3, column 2)"}},
		{"stray quote after a quoted field", "a,b\n1,\"x\"y\n", nil, []string{`2:5: extraneous or missing " in a quoted field`}},
		{"bare quote", "a,b\n1,x\"y\n", nil, []string{`2:4: a " inside an unquoted field`}},
		{"declared bigint", "id,amount\n1,10\n2,abc\n3,1.5\n", map[string]Kind{"amount": BigInt}, []string{
			`3: column amount: "abc" is not a bigint`, `4: column amount: "1.5" is not a bigint`}},
		{"declared double refuses NaN", "x\nNaN\n", map[string]Kind{"x": Double}, []string{`2: column x: "NaN" is not a double`}},
		{"declared date", "d\n2026-07-01\n07/01/2026\n", map[string]Kind{"d": Date}, []string{`3: column d: "07/01/2026" is not a date`}},
		{"not UTF-8", "a,b\n1,caf\xe9\n", nil, []string{"2:6: the file is not UTF-8 here: save it as UTF-8"}},
		{"NUL byte", "a,b\n1,x\n2,\x00\n", nil, []string{"3:3: a NUL byte"}},
		{"old Mac line endings", "a,b\r1,2\r", nil, []string{"1:4: a line ends with a carriage return alone"}},
		{"a lone CR after CRLF lines", "a,b\r\n1,2\r\n3,4\r", nil, []string{"3:4: a line ends with a carriage return alone"}},
		{"declared boolean", "b\nyes\n", map[string]Kind{"b": Boolean}, []string{`2: column b: "yes" is not a boolean`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tab, errs := Parse([]byte(c.data), c.types)
			if tab != nil {
				t.Errorf("a table despite errors")
			}
			var got []string
			for _, e := range errs {
				pos := fmt.Sprint(e.Line)
				if e.Col > 0 {
					pos += fmt.Sprintf(":%d", e.Col)
				}
				got = append(got, pos+": "+e.Msg)
			}
			if len(got) != len(c.want) {
				t.Fatalf("errors:\n%s\nwant %d", strings.Join(got, "\n"), len(c.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], c.want[i]) {
					t.Errorf("error %d:\n got %s\nwant %s…", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestParseCapsErrors(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b\n")
	for i := 0; i < 25; i++ {
		b.WriteString("1,2,3\n")
	}
	_, errs := Parse([]byte(b.String()), nil)
	if len(errs) != MaxErrors+1 {
		t.Fatalf("%d errors, want %d", len(errs), MaxErrors+1)
	}
	if last := errs[MaxErrors]; last.Line != MaxErrors+1 || !strings.HasPrefix(last.Msg, "15 more errors after this line are not shown") {
		t.Errorf("summary: %d: %s", last.Line, last.Msg)
	}
}

func TestHeaderOnly(t *testing.T) {
	tab, errs := Parse([]byte("a,b\n"), nil)
	if errs != nil || len(tab.Rows) != 0 || tab.Columns[1].Kind != Text {
		t.Errorf("header only: %v %v", tab, errs)
	}
}

func TestParseKind(t *testing.T) {
	for _, k := range Kinds {
		if got, ok := ParseKind(string(k)); !ok || got != k {
			t.Errorf("ParseKind(%s)", k)
		}
	}
	if _, ok := ParseKind("varchar"); ok {
		t.Errorf("varchar is not a kind")
	}
}

func TestParseTimes(t *testing.T) {
	cases := []struct {
		v    string
		want string // RFC 3339 with nanoseconds; "" is not a timestamp
	}{
		{"2026-07-01", "2026-07-01T00:00:00Z"},
		{"2024-02-29", "2024-02-29T00:00:00Z"},
		{"2026-02-29", ""},
		{"1900-02-29", ""},
		{"2000-02-29", "2000-02-29T00:00:00Z"},
		{"2026-13-01", ""},
		{"2026-04-31", ""},
		{"2026-07-01 23:59:59", "2026-07-01T23:59:59Z"},
		{"2026-07-01T00:00:00.5", "2026-07-01T00:00:00.5Z"},
		{"2026-07-01 00:00:00.123456789", "2026-07-01T00:00:00.123456789Z"},
		{"2026-07-01 00:00:00.1234567891", ""},
		{"2026-07-01 00:00:00.", ""},
		{"2026-07-01 24:00:00", ""},
		{"2026-07-01 10:60:00", ""},
		{"2026-07-01 10:00:00Z", ""},
		{"2026-07-01 10:00:00+02:00", ""},
		{"2026-7-01", ""},
		{"２０２６-07-01", ""},
	}
	for _, c := range cases {
		got := ""
		if x, ok := convert(c.v, Timestamp); ok {
			got = x.(time.Time).Format(time.RFC3339Nano)
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q", c.v, got, c.want)
		}
	}
}

// TestParseQuotedCR: a carriage return inside a quoted value is data, and
// CRLF line endings are line endings.
func TestParseQuotedCR(t *testing.T) {
	tab, errs := Parse([]byte("a,b\r\n1,\"x\ry\"\r\n"), nil)
	if len(errs) > 0 || tab == nil || len(tab.Rows) != 1 || tab.Rows[0][1] != "x\ry" {
		t.Fatalf("Parse: %v %v", tab, errs)
	}
}
