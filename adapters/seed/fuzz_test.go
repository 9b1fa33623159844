package seed

import (
	"reflect"
	"testing"
	"time"
)

// FuzzParse: Parse never panics; a table it returns has a typed value of
// its column's kind in every cell, and each value's canonical text reads
// back as the same value (what BigQuery and Spark load).
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"a,b\n1,2\n", "zip,amount\n00123,1.5\n,\n", "d,ts\n2026-07-01,2026-07-01 10:00:00.5\n",
		"a\n\"x\ny\"\n", "a,b\n1,2,3\n", "", "a,a\n", "b\ntrue\nFALSE\n", "n\n-0\n9223372036854775807\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, errs := Parse(data, nil)
		if (tab == nil) == (errs == nil) {
			t.Fatalf("table %v and errors %v", tab, errs)
		}
		if tab == nil {
			for _, e := range errs {
				if e.Line < 1 || e.Msg == "" {
					t.Fatalf("unpositioned error %+v", e)
				}
			}
			return
		}
		for i, row := range tab.Rows {
			if len(row) != len(tab.Columns) {
				t.Fatalf("row %d has %d values for %d columns", i, len(row), len(tab.Columns))
			}
			for j, v := range row {
				if v == nil {
					continue
				}
				k := tab.Columns[j].Kind
				if !ofKind(v, k) {
					t.Fatalf("row %d column %d: %T in a %s column", i, j, v, k)
				}
				text, _ := tab.Text(i, j)
				back, ok := convert(text, k)
				if !ok || !reflect.DeepEqual(back, v) {
					t.Fatalf("row %d column %d: %#v → %q → %#v", i, j, v, text, back)
				}
			}
		}
	})
}

func ofKind(v any, k Kind) bool {
	switch v.(type) {
	case int64:
		return k == BigInt
	case float64:
		return k == Double
	case bool:
		return k == Boolean
	case time.Time:
		return k == Date || k == Timestamp
	case string:
		return k == Text
	}
	return false
}
