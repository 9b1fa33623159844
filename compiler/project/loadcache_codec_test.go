package project

import (
	"bytes"
	"encoding/gob"
	"math"
	"reflect"
	"testing"
)

func TestHeaderLinesCodec(t *testing.T) {
	for _, h := range []HeaderLines{
		{"materialized": {"models/a.sql", 2}},
		{
			"materialized":   {"models/a.sql", 2},
			"checks.unique":  {"models/a.sql", 11},
			"schema":         {"project.toml", 7},
			"checks.expect":  {"models/a.sql", 14},
			"":               {"", 0},
			"lookback":       {"project.toml", -1},
			"with ünïcode ✓": {"models/ü.sql", 1 << 40},
		},
	} {
		b, err := h.GobEncode()
		if err != nil {
			t.Fatal(err)
		}
		var got HeaderLines
		if err := got.GobDecode(b); err != nil {
			t.Fatalf("%v: %v", h, err)
		}
		if !reflect.DeepEqual(got, h) {
			t.Errorf("round trip: %v, want %v", got, h)
		}
		again, _ := got.GobEncode()
		if !bytes.Equal(again, b) {
			t.Errorf("%v: encoded twice, different bytes", h)
		}
		// Every cut of the text is an error, never a panic or a
		// shorter map taken for the whole.
		for i := range len(b) {
			var cut HeaderLines
			if cut.GobDecode(b[:i]) == nil {
				t.Errorf("%v cut at %d of %d bytes: no error", h, i, len(b))
			}
		}
		var long HeaderLines
		if long.GobDecode(append(b[:len(b):len(b)], 0)) == nil {
			t.Errorf("%v with a byte more: no error", h)
		}
	}
}

func TestCheckSpecCodec(t *testing.T) {
	for _, v := range []any{
		nil,
		"",
		"id",
		int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64),
		1.5, math.Inf(-1), -0.0,
		true, false,
		[]any{"a", int64(1), 2.5, false, nil},
		[]any{},
		map[string]any{},
		[]any(nil),
		map[string]any(nil),
		map[string]any{"value": int64(1), "severity": "warn"},
		map[string]any{"status": []any{"new", "paid"}, "nested": map[string]any{"x": []any{[]any{}, map[string]any{}}}},
	} {
		b, err := CheckSpec{v}.GobEncode()
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		var got CheckSpec
		if err := got.GobDecode(b); err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		if !reflect.DeepEqual(got.Value, v) {
			t.Errorf("round trip: %#v, want %#v", got.Value, v)
		}
		for i := range len(b) {
			var cut CheckSpec
			if cut.GobDecode(b[:i]) == nil {
				t.Errorf("%#v cut at %d of %d bytes: no error", v, i, len(b))
			}
		}
	}
	// A type the cache cannot give back is refused, not sent wrong.
	for _, v := range []any{int(1), []string{"a"}, map[string]string{}, struct{}{}} {
		if _, err := (CheckSpec{v}).GobEncode(); err == nil {
			t.Errorf("%T: encoded", v)
		}
	}
	var bad CheckSpec
	if bad.GobDecode([]byte{200}) == nil {
		t.Error("an unknown tag: no error")
	}
}

// TestModelCodecThroughGob sends a model as the load cache does and gets
// the same model back, the maps of checks and header lines included.
func TestModelCodecThroughGob(t *testing.T) {
	m := &Model{
		Name: "orders", Path: "models/orders.sql", Body: "SELECT 1",
		Config: ModelConfig{Materialized: "table", Checks: map[string]CheckSpec{
			"unique":          {[]any{"id"}},
			"min_rows":        {map[string]any{"value": int64(1), "severity": "warn"}},
			"accepted_values": {map[string]any{"status": []any{"new", "paid"}}},
		}},
		HeaderLine: HeaderLines{"materialized": {"models/orders.sql", 2}, "checks.unique": {"models/orders.sql", 5}},
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(m); err != nil {
		t.Fatal(err)
	}
	var got Model
	if err := gob.NewDecoder(&buf).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&got, m) {
		t.Errorf("through gob:\n%#v\nwant\n%#v", &got, m)
	}
}
