package gobmap

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"reflect"
	"testing"
)

// TestRoundTrip: maps of no, one, a partial and several full messages come
// back as written, after a value of another type on the same stream; a
// stream cut inside a message is an error.
func TestRoundTrip(t *testing.T) {
	type value struct {
		N int
		S []string
	}
	for _, n := range []int{0, 1, Chunk - 1, Chunk, 3*Chunk + 7} {
		m := map[string]*value{}
		for i := 0; i < n; i++ {
			m[fmt.Sprint("k", i)] = &value{N: i, S: []string{fmt.Sprint(i)}}
		}
		var buf bytes.Buffer
		enc := gob.NewEncoder(&buf)
		if err := enc.Encode("header"); err != nil {
			t.Fatal(err)
		}
		if err := Encode(enc, m); err != nil {
			t.Fatal(err)
		}
		dec := gob.NewDecoder(bytes.NewReader(buf.Bytes()))
		var header string
		got := map[string]*value{}
		if err := dec.Decode(&header); err != nil || header != "header" {
			t.Fatalf("%d entries: header %q, %v", n, header, err)
		}
		if err := Decode(dec, got); err != nil || !reflect.DeepEqual(got, m) {
			t.Fatalf("%d entries: read %d back (%v)", n, len(got), err)
		}
		if n > 0 {
			dec = gob.NewDecoder(bytes.NewReader(buf.Bytes()[:buf.Len()-3]))
			_ = dec.Decode(&header)
			if err := Decode(dec, map[string]*value{}); err == nil {
				t.Errorf("%d entries: a cut stream read without an error", n)
			}
		}
	}
}
