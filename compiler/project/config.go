package project

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/compiler/suggest"
)

// StringList is a TOML string or list of strings ("k" and ["k"] mean the same).
type StringList []string

// UnmarshalTOML accepts a string or an array of strings.
func (s *StringList) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*s = StringList{x}
	case []any:
		out := make(StringList, 0, len(x))
		for _, e := range x {
			str, ok := e.(string)
			if !ok {
				return fmt.Errorf("must be a list of quoted strings, not a list holding %s", describeValue(e))
			}
			out = append(out, str)
		}
		*s = out
	default:
		return fmt.Errorf("must be a quoted string or a list of them, not %s", describeValue(v))
	}
	return nil
}

// Watermark configures an unpartitioned incremental model read by a high-water mark.
type Watermark struct {
	Column  string `toml:"column"`
	Kind    string `toml:"kind"` // "timestamp" (default) or "sequence"
	Lag     string `toml:"lag"`
	Overlap string `toml:"overlap"`
}

// CheckSpec is the raw value of one [checks] entry, as a layer sets it;
// the merged table is typed by kind at load (Model.Checks, checks.go).
type CheckSpec struct{ Value any }

// UnmarshalTOML keeps the raw value.
func (c *CheckSpec) UnmarshalTOML(v any) error { c.Value = v; return nil }

// ModelConfig is every setting a model may have (DESIGN §4). It is decoded
// from project.toml [models] tables and from the model's header; later layers
// win key by key.
type ModelConfig struct {
	Materialized          string               `toml:"materialized"`
	Strategy              string               `toml:"strategy"`
	PartitionBy           string               `toml:"partition_by"`
	Granularity           string               `toml:"granularity"`
	Start                 string               `toml:"start"`
	Lookback              int                  `toml:"lookback"`
	UniqueKey             StringList           `toml:"unique_key"`
	Watermark             *Watermark           `toml:"watermark"`
	MergeUpdateColumns    StringList           `toml:"merge_update_columns"`
	MergeExcludeColumns   StringList           `toml:"merge_exclude_columns"`
	OnSchemaChange        string               `toml:"on_schema_change"`
	Schema                string               `toml:"schema"`
	Alias                 string               `toml:"alias"`
	AllowAppend           bool                 `toml:"allow_append"`
	AllowNondeterministic StringList           `toml:"allow_nondeterministic"`
	StrictParse           bool                 `toml:"strict_parse"`
	LineageColumns        bool                 `toml:"lineage_columns"` // _idemc_run_id and _idemc_as_of on every written row
	Tags                  StringList           `toml:"tags"`
	Description           string               `toml:"description"` // for the docs site; not part of the code hash
	Checks                map[string]CheckSpec `toml:"checks"`
	// Drift is the [drift] table, merged key by key (drift.go); not part
	// of the code hash: a rule judges a write, it does not change it.
	Drift map[string]CheckSpec `toml:"drift"`
}

// fieldTags are the toml tags of ModelConfig's fields, by field index.
var fieldTags = func() []string {
	t := reflect.TypeOf(ModelConfig{})
	tags := make([]string, t.NumField())
	for i := range tags {
		tags[i] = t.Field(i).Tag.Get("toml")
	}
	return tags
}()

// configKeys lists the valid model setting names, for "did you mean" suggestions.
var configKeys = func() []string {
	t := reflect.TypeOf(ModelConfig{})
	keys := make([]string, 0, t.NumField())
	for i := 0; i < t.NumField(); i++ {
		keys = append(keys, t.Field(i).Tag.Get("toml"))
	}
	sort.Strings(keys)
	return keys
}()

// CheckKinds lists the declared check names of DESIGN §8.
var CheckKinds = []string{"accepted_values", "expect", "min_rows", "not_null", "relationships", "row_count_matches", "unique"}

var watermarkKeys = []string{"column", "kind", "lag", "overlap"}

// layer is one source of model settings and the keys it set.
type layer struct {
	cfg     ModelConfig
	defined map[string]bool // "strategy", "checks.unique", …
	where   string          // for error messages
}

// overlay copies the fields that src defined onto dst.
func overlay(dst *ModelConfig, src *layer) {
	if len(src.defined) == 0 && len(src.cfg.Checks) == 0 && len(src.cfg.Drift) == 0 {
		return // nothing set: common for [models] and folder layers
	}
	dv := reflect.ValueOf(dst).Elem()
	sv := reflect.ValueOf(&src.cfg).Elem()
	for i, tag := range fieldTags {
		if tag == "checks" {
			for k, v := range src.cfg.Checks {
				if dst.Checks == nil {
					dst.Checks = map[string]CheckSpec{}
				}
				dst.Checks[k] = v
			}
			continue
		}
		if tag == "drift" {
			overlayDrift(dst, src.cfg.Drift)
			continue
		}
		if src.defined[tag] {
			dv.Field(i).Set(sv.Field(i))
		}
	}
}

// Validate checks the values (not the presence) of settings that need no SQL.
// It returns messages keyed by setting name so the caller can position them.
func (c *ModelConfig) validate() map[string]string {
	bad := map[string]string{}
	oneOf := func(key, v string, allowed ...string) {
		if v == "" {
			return
		}
		for _, a := range allowed {
			if v == a {
				return
			}
		}
		msg := fmt.Sprintf("%s = %q is not valid; use one of %s", key, v, strings.Join(allowed, ", "))
		if s := suggest.Closest(v, allowed); s != "" {
			msg = fmt.Sprintf("%s = %q is not valid; did you mean %q? (one of %s)", key, v, s, strings.Join(allowed, ", "))
		}
		bad[key] = msg
	}
	oneOf("materialized", c.Materialized, "view", "table", "incremental", "ephemeral")
	oneOf("strategy", c.Strategy, "delete_insert", "merge", "insert_overwrite", "append")
	oneOf("granularity", c.Granularity, "hour", "day", "month", "year")
	oneOf("on_schema_change", c.OnSchemaChange, "fail", "append_new_columns", "sync_all_columns")
	if c.Lookback < 0 {
		bad["lookback"] = "lookback must be 0 or more"
	}
	if c.Start != "" {
		if _, err := partition.ParseTime(c.Start); err != nil {
			bad["start"] = fmt.Sprintf("start = %q is not a date or timestamp; write it as 2026-07-01 or 2026-07-01T13:00:00", c.Start)
		}
	}
	if w := c.Watermark; w != nil {
		switch {
		case w.Column == "":
			bad["watermark"] = "watermark needs a column: watermark = { column = \"updated_at\" }"
		case w.Kind != "" && w.Kind != "timestamp" && w.Kind != "sequence":
			bad["watermark"] = fmt.Sprintf("watermark kind %q is not valid; use \"timestamp\" or \"sequence\"", w.Kind)
		}
		for _, d := range []string{w.Lag, w.Overlap} {
			if d != "" {
				if _, err := time.ParseDuration(d); err != nil {
					bad["watermark"] = fmt.Sprintf("watermark duration %q is not valid; write it as 15m, 1h or 90s", d)
				}
			}
		}
	}
	for k := range c.Checks {
		if !contains(CheckKinds, k) {
			msg := fmt.Sprintf("unknown check %q; use one of %s", k, strings.Join(CheckKinds, ", "))
			if s := suggest.Closest(k, CheckKinds); s != "" {
				msg = fmt.Sprintf("unknown check %q; did you mean %q?", k, s)
			}
			bad["checks."+k] = msg
		}
	}
	return bad
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
