// Package valuehash writes a value's every field into a hash, for cache
// keys: two values write the same bytes exactly when they hold the same
// data. It replaces json for that (a warm compile hashed 10,000 units'
// writes): json escapes every string and names every field, which a key
// need not, and cost 2–3 times as much.
//
// Field names and types are not written: a key made by one build of a
// program is compared only with keys of the same build, whose types are
// the same. Every field is written, exported or not, so a field added to a
// type is covered without touching the key.
package valuehash

import (
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
)

// Append appends v's encoding to b. A value holding a function, channel
// or unsafe pointer, a time in an unexported field, or pointers nested
// deeper than maxDepth (a cycle) is an error.
func Append(b []byte, v any) ([]byte, error) {
	return appendValue(b, reflect.ValueOf(v), 0)
}

// maxDepth bounds the nesting of pointers, interfaces, slices and maps.
const maxDepth = 100

var timeType = reflect.TypeFor[time.Time]()

func appendValue(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if !v.IsValid() { // a nil interface
		return append(b, 0), nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("valuehash: nested deeper than %d (a cycle?)", maxDepth)
	}
	depth++
	switch v.Kind() {
	case reflect.String:
		return appendString(b, v.String()), nil
	case reflect.Bool:
		if v.Bool() {
			return append(b, 1), nil
		}
		return append(b, 0), nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return binary.AppendVarint(b, v.Int()), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return binary.AppendUvarint(b, v.Uint()), nil
	case reflect.Float32, reflect.Float64:
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(v.Float())), nil
	case reflect.Complex64, reflect.Complex128:
		c := v.Complex()
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(real(c)))
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(imag(c))), nil
	case reflect.Pointer:
		if v.IsNil() {
			return append(b, 0), nil
		}
		return appendValue(append(b, 1), v.Elem(), depth)
	case reflect.Interface:
		if v.IsNil() {
			return append(b, 0), nil
		}
		// The dynamic type's name: "1" and 1 are different settings.
		return appendValue(appendString(append(b, 1), v.Elem().Type().String()), v.Elem(), depth)
	case reflect.Slice:
		if v.IsNil() {
			return append(b, 0), nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return appendString(append(b, 1), string(v.Bytes())), nil
		}
		return appendElems(binary.AppendUvarint(append(b, 1), uint64(v.Len())), v, depth)
	case reflect.Array:
		return appendElems(b, v, depth)
	case reflect.Map:
		return appendMap(b, v, depth)
	case reflect.Struct:
		if v.Type() == timeType {
			return appendTime(b, v)
		}
		for i := range v.NumField() {
			var err error
			if b, err = appendValue(b, v.Field(i), depth); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("valuehash: a value of type %s", v.Type())
}

func appendElems(b []byte, v reflect.Value, depth int) ([]byte, error) {
	for i := range v.Len() {
		var err error
		if b, err = appendValue(b, v.Index(i), depth); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// appendMap writes the entries in the order of their keys' encodings.
func appendMap(b []byte, v reflect.Value, depth int) ([]byte, error) {
	if v.IsNil() {
		return append(b, 0), nil
	}
	b = binary.AppendUvarint(append(b, 1), uint64(v.Len()))
	type entry struct{ key, value []byte }
	entries := make([]entry, 0, v.Len())
	for it := v.MapRange(); it.Next(); {
		k, err := appendValue(nil, it.Key(), depth)
		if err != nil {
			return nil, err
		}
		val, err := appendValue(nil, it.Value(), depth)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{k, val})
	}
	slices.SortFunc(entries, func(x, y entry) int { return strings.Compare(string(x.key), string(y.key)) })
	for _, e := range entries {
		b = append(append(b, e.key...), e.value...)
	}
	return b, nil
}

// appendTime writes the instant and the zone's offset and name, as a
// time's text shows them; not its monotonic reading, which no setting
// holds.
func appendTime(b []byte, v reflect.Value) ([]byte, error) {
	if !v.CanInterface() { // its fields are unexported, and so is the one holding it
		return nil, fmt.Errorf("valuehash: a time in an unexported field")
	}
	t := v.Interface().(time.Time)
	name, offset := t.Zone()
	b = binary.AppendVarint(b, t.Unix())
	b = binary.AppendVarint(b, int64(t.Nanosecond()))
	b = binary.AppendVarint(b, int64(offset))
	return appendString(b, name), nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
