package project

import (
	"bytes"
	"fmt"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/idemc/idemc/internal/bincodec"
	"github.com/idemc/idemc/internal/testfill"
)

var fill = testfill.Fill

func encodeModel(m *Model) ([]byte, error) {
	e := &encoder{}
	e.model(m)
	return e.B, e.Err
}

// decodeModel reads one model that must fill b.
func decodeModel(b []byte) (*Model, error) {
	d := &decoder{bincodec.Decoder{S: string(b)}}
	m := d.model()
	return m, d.End()
}

func roundTrip(t *testing.T, m *Model) *Model {
	t.Helper()
	b, err := encodeModel(m)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeModel(b)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := encodeModel(got)
	if !bytes.Equal(again, b) {
		t.Error("the model decoded and encoded again: other bytes")
	}
	return got
}

// TestModelCodecEveryField: a model with every field filled, and the zero
// model, come back equal. A field added to Model or to a type it holds
// and not to the codec fails here.
func TestModelCodecEveryField(t *testing.T) {
	var m Model
	n := 0
	fill(reflect.ValueOf(&m).Elem(), &n)
	if got := roundTrip(t, &m); !reflect.DeepEqual(got, &m) {
		t.Errorf("filled model:\n got %#v\nwant %#v", got, &m)
	}
	if got := roundTrip(t, &Model{}); !reflect.DeepEqual(got, &Model{}) {
		t.Errorf("zero model: got %#v", got)
	}
	// Empty apart from nil, at every level.
	empty := &Model{
		Config:     ModelConfig{UniqueKey: StringList{}, Tags: StringList{""}, Checks: map[string]CheckSpec{}, Drift: map[string]CheckSpec{"": {}}},
		HeaderLine: HeaderLines{},
		Settled:    Settled{Checks: []Check{{Columns: []string{}}}, Drift: &Drift{}},
	}
	if got := roundTrip(t, empty); !reflect.DeepEqual(got, empty) {
		t.Errorf("empty parts:\n got %#v\nwant %#v", got, empty)
	}
}

func TestModelCodecValues(t *testing.T) {
	for _, v := range []any{
		nil, "", "id",
		int64(0), int64(-7), int64(math.MaxInt64), int64(math.MinInt64),
		1.5, math.Inf(-1),
		true, false,
		[]any{"a", int64(1), 2.5, false, nil},
		[]any{}, map[string]any{}, []any(nil), map[string]any(nil),
		map[string]any{"value": int64(1), "severity": "warn"},
		map[string]any{"status": []any{"new", "paid"}, "nested": map[string]any{"x": []any{[]any{}, map[string]any{}}}},
	} {
		m := &Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {v}}}}
		if got := roundTrip(t, m); !reflect.DeepEqual(got, m) {
			t.Errorf("value %#v: got %#v", v, got.Config.Checks["x"].Value)
		}
	}
	// A value the codec cannot give back is refused, not sent wrong.
	for _, v := range []any{1, []string{"a"}, map[string]string{}, time.Now()} {
		m := &Model{Config: ModelConfig{Checks: map[string]CheckSpec{"x": {v}}}}
		if _, err := encodeModel(m); err == nil {
			t.Errorf("%T: encoded", v)
		}
	}
}

// TestModelCodecCut: every cut of a model's bytes, and a byte more, is
// an error, never a panic or a shorter model taken for the whole.
func TestModelCodecCut(t *testing.T) {
	var m Model
	n := 0
	fill(reflect.ValueOf(&m).Elem(), &n)
	b, err := encodeModel(&m)
	if err != nil {
		t.Fatal(err)
	}
	for i := range len(b) {
		if _, err := decodeModel(b[:i]); err == nil {
			t.Errorf("cut at %d of %d bytes: no error", i, len(b))
		}
	}
	if _, err := decodeModel(append(b[:len(b):len(b)], 0)); err == nil {
		t.Error("a byte more: no error")
	}
}

// TestModelCodecThroughShards sends entries as the load cache does.
func TestModelCodecThroughShards(t *testing.T) {
	in := map[string]*modelEntry{}
	for i := range 20 {
		var m Model
		n := i * 1000
		fill(reflect.ValueOf(&m).Elem(), &n)
		in[fmt.Sprintf("models/m%d.sql", i)] = &modelEntry{Stat: fileStat{Size: 3, MTime: -5, CTime: 7, Ino: int64(i), Mode: 0o644}, Sum: Digest{byte(i)}, Racy: i%2 == 0, Model: &m}
	}
	var buf bytes.Buffer
	if err := encodeShards(&buf, "f", "env", in); err != nil {
		t.Fatal(err)
	}
	if out := decodeShards(buf.Bytes(), "f", "env"); !reflect.DeepEqual(out, in) {
		t.Errorf("through the shards: %d entries back, want %d, or other ones", len(out), len(in))
	}
}

func BenchmarkModelDecode(b *testing.B) {
	var m Model
	n := 0
	fill(reflect.ValueOf(&m).Elem(), &n)
	enc, _ := encodeModel(&m)
	b.ReportAllocs()
	for range b.N {
		if _, err := decodeModel(enc); err != nil {
			b.Fatal(err)
		}
	}
}
