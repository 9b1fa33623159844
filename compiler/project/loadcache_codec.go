package project

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

// The load cache sends two parts of a model in their own compact form
// rather than gob's: a header's positions (a map of a dozen keys, each
// with the file's path again) and a check's raw TOML value (an interface,
// for which gob sends a type name and decodes by reflection). They were
// half of a warm compile's decoding of the cache.

// HeaderLines is where each setting of a model's header was written,
// by key ("materialized", "checks.unique").
type HeaderLines map[string]Pos

// GobEncode writes the paths once each, then each key's line and path.
func (h HeaderLines) GobEncode() ([]byte, error) {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys) // the same map, the same bytes
	var paths []string
	b := binary.AppendUvarint(nil, uint64(len(keys)))
	for _, k := range keys {
		p := h[k]
		i := slices.Index(paths, p.Path)
		if i < 0 {
			i = len(paths)
			paths = append(paths, p.Path)
			b = binary.AppendUvarint(b, uint64(i))
			b = appendString(b, p.Path)
		} else {
			b = binary.AppendUvarint(b, uint64(i))
		}
		b = appendString(b, k)
		b = binary.AppendVarint(b, int64(p.Line))
	}
	return b, nil
}

// GobDecode reads what GobEncode wrote; the keys share one string.
func (h *HeaderLines) GobDecode(b []byte) error {
	d := decoder{b: b}
	n := d.uvarint()
	m := make(HeaderLines, min(n, uint64(len(b))))
	var paths []string
	keys := string(b) // one allocation: each key is a slice of it
	for i := uint64(0); i < n && d.err == nil; i++ {
		pi := d.uvarint()
		switch {
		case pi == uint64(len(paths)):
			paths = append(paths, d.string())
		case pi > uint64(len(paths)):
			d.fail("path %d of %d", pi, len(paths))
			continue
		}
		start, l := d.stringSpan()
		line := d.varint()
		if d.err == nil {
			m[keys[start:start+l]] = Pos{Path: paths[pi], Line: int(line)}
		}
	}
	if d.err == nil && len(d.b) != d.at {
		d.fail("%d bytes left", len(d.b)-d.at)
	}
	if d.err != nil {
		return fmt.Errorf("header lines: %w", d.err)
	}
	*h = m
	return nil
}

// Tags of a check's value, one byte before it.
const (
	tagNil byte = iota
	tagString
	tagInt
	tagFloat
	tagFalse
	tagTrue
	tagList
	tagTable
	tagEmptyList  // []any{}, not nil
	tagEmptyTable // map[string]any{}, not nil
	tagNilList    // []any(nil)
	tagNilTable   // map[string]any(nil)
)

// GobEncode writes the TOML value: strings, integers, floats, booleans,
// and lists and tables of them. Any other type (a TOML date) is an error;
// gobExact keeps a model holding one out of the cache.
func (c CheckSpec) GobEncode() ([]byte, error) { return appendValue(nil, c.Value) }

// GobDecode reads what GobEncode wrote.
func (c *CheckSpec) GobDecode(b []byte) error {
	d := decoder{b: b}
	v := d.value(0)
	if d.err == nil && len(d.b) != d.at {
		d.fail("%d bytes left", len(d.b)-d.at)
	}
	if d.err != nil {
		return fmt.Errorf("check value: %w", d.err)
	}
	c.Value = v
	return nil
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(b, tagNil), nil
	case string:
		return appendString(append(b, tagString), v), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), v), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(v)), nil
	case bool:
		if v {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case []any:
		if v == nil {
			return append(b, tagNilList), nil
		} else if len(v) == 0 {
			return append(b, tagEmptyList), nil
		}
		b = binary.AppendUvarint(append(b, tagList), uint64(len(v)))
		for _, e := range v {
			var err error
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case map[string]any:
		if v == nil {
			return append(b, tagNilTable), nil
		} else if len(v) == 0 {
			return append(b, tagEmptyTable), nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = binary.AppendUvarint(append(b, tagTable), uint64(len(keys)))
		for _, k := range keys {
			var err error
			if b, err = appendValue(appendString(b, k), v[k]); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("a check value of type %T", v)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// decoder reads the compact forms; the first error sticks.
type decoder struct {
	b   []byte
	at  int
	err error
}

var errShort = errors.New("cut short")

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf(format, args...)
	}
}

func (d *decoder) uvarint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.at:])
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.at += n
	return v
}

func (d *decoder) varint() int64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.b[d.at:])
	if n <= 0 {
		d.err = errShort
		return 0
	}
	d.at += n
	return v
}

// stringSpan is where the next string is in d.b.
func (d *decoder) stringSpan() (start, n int) {
	l := d.uvarint()
	if d.err == nil && l > uint64(len(d.b)-d.at) {
		d.err = errShort
	}
	if d.err != nil {
		return 0, 0
	}
	start = d.at
	d.at += int(l)
	return start, int(l)
}

func (d *decoder) string() string {
	start, n := d.stringSpan()
	return string(d.b[start : start+n])
}

// value reads a tagged value; depth bounds a corrupt file's nesting.
func (d *decoder) value(depth int) any {
	if d.err != nil {
		return nil
	}
	if d.at >= len(d.b) || depth > 64 {
		d.fail("cut short or nested too deep")
		return nil
	}
	tag := d.b[d.at]
	d.at++
	switch tag {
	case tagNil:
		return nil
	case tagString:
		return d.string()
	case tagInt:
		return d.varint()
	case tagFloat:
		if len(d.b)-d.at < 8 {
			d.err = errShort
			return nil
		}
		f := math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.at:]))
		d.at += 8
		return f
	case tagFalse, tagTrue:
		return tag == tagTrue
	case tagEmptyList:
		return []any{}
	case tagEmptyTable:
		return map[string]any{}
	case tagNilList:
		return []any(nil)
	case tagNilTable:
		return map[string]any(nil)
	case tagList:
		n := d.uvarint()
		l := make([]any, 0, min(n, uint64(len(d.b))))
		for i := uint64(0); i < n && d.err == nil; i++ {
			l = append(l, d.value(depth+1))
		}
		return l
	case tagTable:
		n := d.uvarint()
		m := make(map[string]any, min(n, uint64(len(d.b))))
		for i := uint64(0); i < n && d.err == nil; i++ {
			k := d.string()
			m[k] = d.value(depth + 1)
		}
		return m
	}
	d.fail("value tag %d", tag)
	return nil
}
