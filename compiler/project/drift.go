package project

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/plan"
)

// Drift is a model's [drift] rules (DESIGN §14, docs/notify.md), typed
// from the merged table: a project-level [drift] under the model's own.
// The compiler turns them into checks of the unit's write.
type Drift struct {
	RowCount *RowCountRule // nil: off
	ZeroRows string        // "error", "warn", or "" (off)
	Pos      Pos           // where [drift] was set, for errors found later
}

// RowCountRule is drift.row_count.
type RowCountRule struct {
	Window             int
	MinRatio, MaxRatio float64
	Severity           string
}

// DriftKeys are the keys of a [drift] table, and RowCountKeys those of its
// row_count table.
var (
	DriftKeys    = []string{"row_count", "zero_rows"}
	RowCountKeys = []string{"window", "min_ratio", "max_ratio", "severity"}
)

// defaultRowCount is row_count = {} (or one given only in part).
var defaultRowCount = RowCountRule{Window: 14, MinRatio: 0.5, MaxRatio: 2.0, Severity: "warn"}

const driftExample = `[drift] with row_count = { window = 14, min_ratio = 0.5, max_ratio = 2.0, severity = "warn" } and zero_rows = "error"`

// overlayDrift sets dst's drift keys from src key by key; a row_count
// table is merged key by key too, so a model can change only its severity.
// "off" turns an inherited rule off.
func overlayDrift(dst *ModelConfig, src map[string]CheckSpec) {
	if len(src) == 0 {
		return
	}
	if dst.Drift == nil {
		dst.Drift = map[string]CheckSpec{}
	}
	for k, v := range src {
		old, _ := dst.Drift[k].Value.(map[string]any)
		nw, ok := v.Value.(map[string]any)
		if k == "row_count" && ok && old != nil {
			merged := map[string]any{}
			for sk, sv := range old {
				merged[sk] = sv
			}
			for sk, sv := range nw {
				merged[sk] = sv
			}
			v = CheckSpec{Value: merged}
		}
		dst.Drift[k] = v
	}
}

// readDrift types a [drift] table; at gives the position of a key
// ("row_count", "row_count.window"), report whether errors of that key are
// reported here (each layer's own keys are reported by the layer).
func readDrift(spec map[string]CheckSpec, at func(key string) Pos, report func(key string) bool, errs *diag.List) *Drift {
	if len(spec) == 0 {
		return nil
	}
	d := &Drift{Pos: at("")}
	bad := func(key, format string, args ...any) {
		if report(key) {
			p := at(key)
			errs.Add(p.Path, p.Line, 0, format, args...)
		}
	}
	for _, k := range sortedKeys(spec) {
		v := spec[k].Value
		switch k {
		case "zero_rows":
			s, _ := v.(string)
			switch s {
			case "error", "warn":
				d.ZeroRows = s
			case "off":
			default:
				bad(k, "drift.zero_rows = %s is not valid; use \"error\", \"warn\" or \"off\"", describeDrift(v))
			}
		case "row_count":
			if s, ok := v.(string); ok && s == "off" {
				continue
			}
			d.RowCount = readRowCount(v, func(sub, format string, args ...any) { bad(k+sub, format, args...) })
		default:
			bad(k, "unknown key %q in [drift]%s", k, didYouMean(k, DriftKeys))
		}
	}
	if d.RowCount == nil && d.ZeroRows == "" {
		return nil
	}
	return d
}

// readRowCount reads row_count = { window, min_ratio, max_ratio, severity }.
func readRowCount(v any, bad func(sub, format string, args ...any)) *RowCountRule {
	m, ok := v.(map[string]any)
	if !ok {
		bad("", "drift.row_count must be a table or \"off\": row_count = { window = 14, min_ratio = 0.5, max_ratio = 2.0, severity = \"warn\" }")
		return nil
	}
	r := defaultRowCount
	valid := true
	for _, k := range sortedKeys(m) {
		fail := func(format string, args ...any) { bad("."+k, format, args...); valid = false }
		switch k {
		case "window":
			n, ok := m[k].(int64)
			if !ok || n < plan.DriftMinHistory || n > 1000 {
				fail("drift.row_count.window = %s is not valid; use a whole number of partitions from %d to 1000: window = 14", describeDrift(m[k]), plan.DriftMinHistory)
				continue
			}
			r.Window = int(n)
		case "min_ratio", "max_ratio":
			f, ok := number(m[k])
			if !ok || f < 0 {
				fail("drift.row_count.%s = %s is not valid; use a number of 0 or more: %s", k, describeDrift(m[k]), map[string]string{"min_ratio": "min_ratio = 0.5", "max_ratio": "max_ratio = 2.0"}[k])
				continue
			}
			if k == "min_ratio" {
				r.MinRatio = f
			} else {
				r.MaxRatio = f
			}
		case "severity":
			s, _ := m[k].(string)
			if s != "error" && s != "warn" {
				fail("drift.row_count.severity = %s is not valid; use \"error\" or \"warn\"", describeDrift(m[k]))
				continue
			}
			r.Severity = s
		default:
			fail("unknown key %q in drift.row_count%s", k, didYouMean(k, RowCountKeys))
		}
	}
	if valid && r.MinRatio > r.MaxRatio {
		bad("", "drift.row_count: min_ratio %g is above max_ratio %g; the row count could never be in bounds", r.MinRatio, r.MaxRatio)
		return nil
	}
	if !valid {
		return nil
	}
	return &r
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func describeDrift(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("%q", x)
	case int64, float64:
		return fmt.Sprint(x)
	}
	return describeValue(v)
}

// parseProjectDrift checks a [drift] table of project.toml (the top-level
// one, [models] or [models."pattern"]'s, under prefix) at its own lines;
// the models' merged tables do not report its errors again.
func parseProjectDrift(text string, prefix []string, spec map[string]CheckSpec, errs *diag.List) {
	table := append(append([]string{}, prefix...), "drift")
	at := func(key string) Pos {
		if key != "" {
			if l := settingLine(text, table, strings.SplitN(key, ".", 2)[0]); l > 0 {
				return Pos{FileName, l}
			}
		}
		return Pos{FileName, keyLine(text, table)}
	}
	readDrift(spec, at, func(string) bool { return true }, errs)
}

// settleDrift reads the model's merged [drift]; errors are reported only
// for keys its header set (project.toml's are reported once, at load).
func (m *Model) settleDrift(errs *diag.List) {
	at := func(key string) Pos {
		if key == "" {
			key = "drift"
		} else {
			key = "drift." + strings.SplitN(key, ".", 2)[0]
		}
		return m.settingPos(key)
	}
	report := func(key string) bool {
		_, ok := m.HeaderLine["drift."+strings.SplitN(key, ".", 2)[0]]
		return ok
	}
	m.Drift = readDrift(m.Config.Drift, at, report, errs)
	if m.Drift != nil && m.Config.Materialized != plan.Incremental && m.Config.Materialized != plan.Table {
		if _, own := m.HeaderLine["drift"]; own {
			p := m.settingPos("drift")
			errs.Add(p.Path, p.Line, 0, "[drift] applies to tables and incremental models, whose units write rows; remove it from this %s", m.Config.Materialized)
		}
		m.Drift = nil // a project default skips views and ephemeral models
	}
}
