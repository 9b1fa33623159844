package valuehash

import (
	"bytes"
	"testing"
	"time"
)

type inner struct {
	S   string
	N   int
	Sub *inner
}

type sample struct {
	A, B   string
	L      []string
	P      *inner
	M      map[string]int
	I      any
	T      time.Time
	Bytes  []byte
	hidden int
	Arr    [2]bool
	F      float64
	U      uint16
}

func enc(t *testing.T, v any) []byte {
	t.Helper()
	b, err := Append(nil, v)
	if err != nil {
		t.Fatalf("%#v: %v", v, err)
	}
	return b
}

// TestDifferent: values that differ in any one field, or only in where a
// string ends, write different bytes.
func TestDifferent(t *testing.T) {
	utc := time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)
	values := []sample{
		{},
		{A: "ab"},
		{A: "a", B: "b"},
		{B: "ab"},
		{L: []string{}},
		{L: []string{""}},
		{L: []string{"a", "b"}},
		{L: []string{"ab"}},
		{P: &inner{}},
		{P: &inner{Sub: &inner{}}},
		{P: &inner{N: 1}},
		{P: &inner{N: -1}},
		{M: map[string]int{}},
		{M: map[string]int{"a": 1}},
		{M: map[string]int{"a": 2}},
		{M: map[string]int{"b": 1}},
		{I: "1"},
		{I: int64(1)},
		{I: 1},
		{I: []any{}},
		{T: utc},
		{T: utc.Add(time.Nanosecond)},
		{T: utc.In(time.FixedZone("X", 3600)).Add(-time.Hour)},
		{T: utc.In(time.FixedZone("X", 0))},
		{Bytes: []byte{}},
		{Bytes: []byte("a")},
		{hidden: 1},
		{Arr: [2]bool{true, false}},
		{Arr: [2]bool{false, true}},
		{F: 0.5},
		{U: 7},
	}
	seen := map[string]int{}
	for i, v := range values {
		k := string(enc(t, v))
		if j, dup := seen[k]; dup {
			t.Errorf("values %d and %d write the same bytes: %#v, %#v", j, i, values[j], v)
		}
		seen[k] = i
	}
}

// TestSame: equal values write the same bytes, whatever order their maps
// were filled in and whatever their times' monotonic readings.
func TestSame(t *testing.T) {
	m1, m2 := map[string]int{}, map[string]int{}
	for i := range 50 {
		m1[string(rune('a'+i))] = i
		m2[string(rune('a'+49-i))] = 49 - i
	}
	now := time.Now()
	a := enc(t, sample{M: m1, T: now, P: &inner{S: "x"}})
	b := enc(t, sample{M: m2, T: now.Round(0), P: &inner{S: "x"}})
	if !bytes.Equal(a, b) {
		t.Error("equal values, different bytes")
	}
}

func TestRefused(t *testing.T) {
	cycle := &inner{}
	cycle.Sub = cycle
	type withTime struct{ t time.Time }
	for name, v := range map[string]any{
		"func":              func() {},
		"chan":              make(chan int),
		"a func in a slice": []any{1, func() {}},
		"a cycle":           cycle,
		"unexported time":   withTime{time.Now()},
	} {
		if _, err := Append(nil, v); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func BenchmarkAppend(b *testing.B) {
	v := sample{A: "select", L: []string{"id", "event_date", "amount"}, P: &inner{S: "x", Sub: &inner{N: 3}},
		M: map[string]int{"a": 1, "b": 2}, I: "warn", T: time.Now()}
	var buf []byte
	b.ReportAllocs()
	for range b.N {
		buf, _ = Append(buf[:0], v)
	}
}
