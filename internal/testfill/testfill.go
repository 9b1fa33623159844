// Package testfill fills a value's every field for tests of codecs that
// must carry every field: a field added to a type and not to its codec
// then fails a round trip.
package testfill

import (
	"fmt"
	"reflect"
	"time"
)

// Fill gives every field reachable from v a value of its own (n counts
// them): strings, numbers and booleans differ field by field, pointers
// point at filled values, slices and maps hold two filled elements, an
// interface holds a small TOML-like table, a time is a UTC day.
func Fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n)) // distinct per field (truncated for small kinds)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.25)
	case reflect.Array:
		for i := range v.Len() {
			Fill(v.Index(i), n)
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		Fill(v.Elem(), n)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		Fill(v.Index(0), n)
		Fill(v.Index(1), n)
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		for range 2 {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			Fill(k, n)
			Fill(e, n)
			v.SetMapIndex(k, e)
		}
	case reflect.Interface:
		v.Set(reflect.ValueOf(map[string]any{"k": []any{fmt.Sprintf("v%d", *n), int64(*n), true, 1.5}}))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 7, *n%28+1, 0, 0, 0, *n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if !v.Type().Field(i).IsExported() {
				panic(fmt.Sprintf("testfill: %s.%s is unexported: a codec cannot carry it", v.Type(), v.Type().Field(i).Name))
			}
			Fill(v.Field(i), n)
		}
	default:
		panic(fmt.Sprintf("testfill: teach Fill %s", v.Type()))
	}
}
