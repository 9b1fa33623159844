package compiler

import (
	"reflect"
	"testing"
	"time"

	"github.com/idemc/idemc/plan"
)

// TestUnitKeyCoversEveryField changes each field of a unit's write in
// turn, and the unit's key with it: a field added to plan.Write is in the
// key without touching unitKey.
func TestUnitKeyCoversEveryField(t *testing.T) {
	cc := &compilation{opts: Options{Reuse: func(*plan.Unit) int { return 0 }}, keyEnv: []byte("env")}
	base := plan.Write{Model: "m", Materialized: "incremental", Select: "SELECT 1"}
	unit := func(w plan.Write) *plan.Unit {
		return &plan.Unit{ID: "m/2026-07-01", Model: "m", Partition: "2026-07-01", Write: &w}
	}
	var k unitKeyer
	want := cc.unitKey(unit(base), &k)
	if want == "" || cc.unitKey(unit(base), &k) != want {
		t.Fatalf("the same unit twice: keys %q and another", want)
	}
	typ := reflect.TypeFor[plan.Write]()
	for i := range typ.NumField() {
		w := base
		f := reflect.ValueOf(&w).Elem().Field(i)
		if !setNonZero(f) {
			t.Errorf("field %s (%s): the test cannot set it; teach setNonZero", typ.Field(i).Name, f.Type())
			continue
		}
		if got := cc.unitKey(unit(w), &k); got == want || got == "" {
			t.Errorf("field %s changed, key %q (was %q)", typ.Field(i).Name, got, want)
		}
	}
	if cc.unitKey(&plan.Unit{ID: "m/2026-07-02", Model: "m", Partition: "2026-07-02", Write: &base}, &k) == want {
		t.Error("another partition, the same key")
	}
}

// setNonZero gives v a value other than its zero one (or base's).
func setNonZero(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(v.String() + "x")
	case reflect.Bool:
		v.SetBool(!v.Bool())
	case reflect.Int, reflect.Int64:
		v.SetInt(v.Int() + 1)
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		if v.Type().Elem().Kind() == reflect.Pointer {
			v.Index(0).Set(reflect.New(v.Type().Elem().Elem()))
		}
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1, 0)))
			return true
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && setNonZero(v.Field(i)) {
				return true
			}
		}
		return false
	default:
		return false
	}
	return true
}
