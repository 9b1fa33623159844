// Package bincodec writes and reads the plain values of idemc's caches in
// a compact binary form: varints, length-prefixed strings, and counts that
// keep nil apart from empty. A cache's own codec (the load cache's models,
// the compile cache's renders) writes its types field by field with these;
// gob did the same by reflection, allocating every string, and was most of
// a warm compile's reading of its caches.
//
// A Decoder reads from one string and gives back slices of it: one copy of
// a cache's bytes serves every string in it. The first error sticks; every
// read after it gives a zero value, so a codec checks Err once at the end.
package bincodec

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// Encoder appends to B.
type Encoder struct {
	B   []byte
	Err error
}

func (e *Encoder) Uint(v uint64) { e.B = binary.AppendUvarint(e.B, v) }
func (e *Encoder) Int(v int64)   { e.B = binary.AppendVarint(e.B, v) }
func (e *Encoder) Byte(c byte)   { e.B = append(e.B, c) }
func (e *Encoder) Raw(s string)  { e.B = append(e.B, s...) }
func (e *Encoder) Str(s string)  { e.Uint(uint64(len(s))); e.B = append(e.B, s...) }
func (e *Encoder) Float(f float64) {
	e.B = binary.LittleEndian.AppendUint64(e.B, math.Float64bits(f))
}

func (e *Encoder) Bool(v bool) {
	if v {
		e.B = append(e.B, 1)
	} else {
		e.B = append(e.B, 0)
	}
}

// Fail records the first error.
func (e *Encoder) Fail(err error) {
	if e.Err == nil {
		e.Err = err
	}
}

// Count writes a slice's or map's length, 0 for nil and n+1 for n
// elements, and reports whether there is nothing more to write.
func (e *Encoder) Count(isNil bool, n int) (done bool) {
	if isNil {
		e.Uint(0)
		return true
	}
	e.Uint(uint64(n) + 1)
	return n == 0
}

// Strs writes a list of strings, nil apart from empty.
func (e *Encoder) Strs(l []string) {
	if !e.Count(l == nil, len(l)) {
		for _, s := range l {
			e.Str(s)
		}
	}
}

// Decoder reads S from At.
type Decoder struct {
	S   string
	At  int
	Err error
}

var errShort = errors.New("cut short")

// Fail records the first error.
func (d *Decoder) Fail(format string, args ...any) {
	if d.Err == nil {
		d.Err = fmt.Errorf(format, args...)
	}
}

// More reports whether bytes are left and nothing failed.
func (d *Decoder) More() bool { return d.Err == nil && d.At < len(d.S) }

// End is the decoder's error, or one when bytes are left over.
func (d *Decoder) End() error {
	if d.Err == nil && d.At != len(d.S) {
		d.Fail("%d bytes left", len(d.S)-d.At)
	}
	return d.Err
}

func (d *Decoder) Uint() uint64 {
	if d.Err != nil {
		return 0
	}
	var v uint64
	for shift := 0; d.At < len(d.S) && shift < 64; shift += 7 {
		c := d.S[d.At]
		d.At++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.Err = errShort
	return 0
}

func (d *Decoder) Int() int64 {
	u := d.Uint() // zigzag, as binary.AppendVarint writes it
	return int64(u>>1) ^ -int64(u&1)
}

func (d *Decoder) Byte() byte {
	if d.Err != nil || d.At >= len(d.S) {
		d.Fail("cut short")
		return 0
	}
	c := d.S[d.At]
	d.At++
	return c
}

func (d *Decoder) Bool() bool {
	c := d.Byte()
	if c > 1 {
		d.Fail("a boolean of %d", c)
	}
	return c == 1
}

func (d *Decoder) Float() float64 {
	if d.Err != nil || len(d.S)-d.At < 8 {
		d.Fail("cut short")
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64([]byte(d.S[d.At : d.At+8])))
	d.At += 8
	return f
}

// Raw is the next n bytes, a slice of S.
func (d *Decoder) Raw(n int) string {
	if d.Err != nil || n > len(d.S)-d.At {
		d.Fail("cut short")
		return ""
	}
	s := d.S[d.At : d.At+n]
	d.At += n
	return s
}

// Str is the next string, a slice of S: no copy.
func (d *Decoder) Str() string {
	n := d.Uint()
	if d.Err == nil && n > uint64(len(d.S)-d.At) {
		d.Err = errShort
	}
	if d.Err != nil {
		return ""
	}
	return d.Raw(int(n))
}

// Count reads what Encoder.Count wrote; n is bounded by the bytes left
// (each element takes one at least), so a corrupt count allocates little.
func (d *Decoder) Count() (n int, isNil bool) {
	c := d.Uint()
	if d.Err != nil || c == 0 {
		return 0, true
	}
	if c-1 > uint64(len(d.S)-d.At) {
		d.Fail("%d elements in %d bytes", c-1, len(d.S)-d.At)
		return 0, true
	}
	return int(c - 1), false
}

func (d *Decoder) Strs() []string {
	n, isNil := d.Count()
	if isNil {
		return nil
	}
	l := make([]string, n)
	for i := range l {
		l[i] = d.Str()
	}
	return l
}
