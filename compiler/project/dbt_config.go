package project

import (
	"fmt"
	"sort"
	"strings"
)

// dbtSetting is one dbt config value and where it was written.
type dbtSetting struct {
	val any
	pos Pos
}

// dbtConfig is one layer of dbt configs (dbt_project.yml, a properties
// file's config:, a model's config() call), by dbt's key.
type dbtConfig map[string]dbtSetting

// dbtConfigKeys are the dbt model configs idemc maps (dbtMapped) or reads
// as idemc's own settings; others are reported once as ignored.
var (
	dbtMapped = []string{"materialized", "unique_key", "incremental_strategy", "partition_by", "on_schema_change",
		"merge_update_columns", "merge_exclude_columns", "schema", "alias", "tags", "enabled", "event_time", "batch_size",
		"begin", "lookback", "description"}
	// idemc's settings that have no dbt spelling, accepted in config() too.
	dbtIdemcKeys  = []string{"allow_append", "allow_nondeterministic", "strict_parse", "granularity", "start", "watermark"}
	dbtConfigKeys = append(append(append([]string{}, dbtMapped...), dbtIdemcKeys...), "database", "persist_docs",
		"full_refresh", "meta", "docs", "grants", "contract", "pre_hook", "post_hook", "pre-hook", "post-hook",
		"sql_header", "indexes", "cluster_by", "access", "group", "quoting", "column_types", "delimiter", "quote_columns")
)

// dbtStrategies maps dbt's incremental_strategy onto idemc's strategy.
var dbtStrategies = map[string]string{"delete+insert": "delete_insert", "merge": "merge", "insert_overwrite": "insert_overwrite",
	"append": "append", "microbatch": "delete_insert"}

// merge returns dst with src's keys on top; tags add up, as in dbt.
func (c dbtConfig) merge(src dbtConfig) dbtConfig {
	out := make(dbtConfig, len(c)+len(src))
	for k, v := range c {
		out[k] = v
	}
	for k, v := range src {
		if k == "tags" {
			if prev, ok := out[k]; ok {
				v = dbtSetting{val: append(anyList(prev.val), anyList(v.val)...), pos: v.pos}
			}
		}
		out[k] = v
	}
	return out
}

func anyList(v any) []any {
	if l, ok := v.([]any); ok {
		return append([]any{}, l...)
	}
	return []any{v}
}

// applyConfig records one config key of a layer; keys idemc does not use
// are reported once as ignored.
func (l *dbtLoad) applyConfig(c dbtConfig, key string, val any, pos Pos) {
	key = strings.ReplaceAll(key, "-", "_")
	if !contains(dbtMapped, key) && !contains(dbtIdemcKeys, key) {
		l.warnIgnored("config "+key, pos.Path, pos.Line, "idemc does not map it (docs/dbt.md lists what it maps)")
		return
	}
	c[key] = dbtSetting{val, pos}
}

// dbtStrings and dbtLists set the ModelConfig field of a dbt config key
// whose value is a string, or a string or list of strings.
var (
	dbtStrings = map[string]func(c *ModelConfig, v string){
		"materialized": func(c *ModelConfig, v string) { c.Materialized = v },
		"schema":       func(c *ModelConfig, v string) { c.Schema = v },
		"alias":        func(c *ModelConfig, v string) { c.Alias = v },
		"description":  func(c *ModelConfig, v string) { c.Description = v },
		"granularity":  func(c *ModelConfig, v string) { c.Granularity = v },
		"start":        func(c *ModelConfig, v string) { c.Start = v },
		"on_schema_change": func(c *ModelConfig, v string) {
			if v != "ignore" { // dbt's default; idemc's own (fail) applies
				c.OnSchemaChange = v
			}
		},
	}
	dbtLists = map[string]func(c *ModelConfig, v []string){
		"unique_key":             func(c *ModelConfig, v []string) { c.UniqueKey = v },
		"merge_update_columns":   func(c *ModelConfig, v []string) { c.MergeUpdateColumns = v },
		"merge_exclude_columns":  func(c *ModelConfig, v []string) { c.MergeExcludeColumns = v },
		"tags":                   func(c *ModelConfig, v []string) { c.Tags = dedupe(v) },
		"allow_nondeterministic": func(c *ModelConfig, v []string) { c.AllowNondeterministic = v },
	}
)

// toModelConfig maps the merged dbt configs onto m's settings, each at the
// line that set it. It reports whether the model is enabled.
func (l *dbtLoad) toModelConfig(m *Model, c dbtConfig) bool {
	if e, ok := c["enabled"]; ok {
		if b, isBool := e.val.(bool); isBool && !b {
			return false
		}
	}
	cfg := &m.Config
	bad := func(key, format string, args ...any) {
		l.errs.Add(c[key].pos.Path, c[key].pos.Line, 0, "config %s: %s", key, fmt.Sprintf(format, args...))
	}
	for _, k := range sortedDBTKeys(c) {
		s := c[k]
		if set, ok := dbtStrings[k]; ok {
			v, isStr := s.val.(string)
			if !isStr {
				bad(k, "must be a quoted string, not %s", describeValue(s.val))
				continue
			}
			set(cfg, v)
		} else if set, ok := dbtLists[k]; ok {
			v, isList := stringsOf(s.val)
			if !isList {
				bad(k, "must be a quoted string or a list of them, not %s", describeValue(s.val))
				continue
			}
			set(cfg, v)
		} else if k == "allow_append" || k == "strict_parse" {
			b, isBool := s.val.(bool)
			if !isBool {
				bad(k, "must be true or false")
				continue
			}
			cfg.AllowAppend = cfg.AllowAppend || k == "allow_append" && b
			cfg.StrictParse = cfg.StrictParse || k == "strict_parse" && b
		} else if k == "watermark" {
			if !l.mapWatermark(cfg, s, bad) {
				continue
			}
		} else {
			continue // mapped below, or not a setting (enabled)
		}
		m.HeaderLine[k] = s.pos
	}
	l.mapIncremental(m, c, bad)
	return true
}

// mapWatermark reads idemc's watermark={'column': …, 'lag': …}.
func (l *dbtLoad) mapWatermark(cfg *ModelConfig, s dbtSetting, bad func(key, format string, args ...any)) bool {
	w, isMap := s.val.(map[string]any)
	if !isMap {
		bad("watermark", "must be a dict: watermark={'column': 'updated_at', 'lag': '5m'}")
		return false
	}
	str := func(k string) string { v, _ := w[k].(string); return v }
	cfg.Watermark = &Watermark{Column: str("column"), Kind: str("kind"), Lag: str("lag"), Overlap: str("overlap")}
	return true
}

// mapIncremental maps incremental_strategy, partition_by and microbatch's
// event_time/batch_size/begin/lookback onto idemc's strategy and partitions.
func (l *dbtLoad) mapIncremental(m *Model, c dbtConfig, bad func(key, format string, args ...any)) {
	cfg := &m.Config
	strategy := ""
	if s, ok := c["incremental_strategy"]; ok {
		strategy, _ = s.val.(string)
		mapped, known := dbtStrategies[strategy]
		if !known {
			bad("incremental_strategy", "%q is not one idemc maps; use one of delete+insert, merge, insert_overwrite, append, microbatch", strategy)
			return
		}
		cfg.Strategy = mapped
		m.HeaderLine["strategy"] = s.pos
	}
	if s, ok := c["begin"]; ok {
		cfg.Start = fmt.Sprint(s.val)
		m.HeaderLine["start"] = s.pos
	}
	if s, ok := c["lookback"]; ok {
		n, isInt := s.val.(int64)
		if !isInt {
			bad("lookback", "must be a whole number of batches")
		}
		cfg.Lookback = int(n)
		m.HeaderLine["lookback"] = s.pos
	}
	if strategy == "microbatch" {
		// dbt's microbatch is idemc's partitions: one batch per unit
		// (docs.getdbt.com, "About microbatch incremental models").
		et, ok := c["event_time"]
		col, _ := et.val.(string)
		if !ok || col == "" {
			bad("incremental_strategy", "microbatch needs event_time='column' (the partition column)")
			return
		}
		cfg.PartitionBy = col
		m.HeaderLine["partition_by"] = et.pos
		if bs, ok := c["batch_size"]; ok {
			cfg.Granularity = fmt.Sprint(bs.val)
			m.HeaderLine["granularity"] = bs.pos
		}
		if _, ok := c["lookback"]; !ok {
			cfg.Lookback = 1 // dbt's default lookback for microbatch
		}
		return
	}
	if s, ok := c["partition_by"]; ok {
		l.mapPartitionBy(m, s, bad)
	}
	if cfg.Materialized == "incremental" && cfg.Strategy == "" && cfg.PartitionBy == "" && len(cfg.UniqueKey) == 0 {
		// dbt appends without a unique_key; idemc's lint refuses that (L004)
		// unless allow_append says a rerun may duplicate rows.
		cfg.Strategy = "append"
		if p, ok := c["materialized"]; ok {
			m.HeaderLine["strategy"] = p.pos
		}
	}
}

// mapPartitionBy maps partition_by, a column or dbt's {field, data_type,
// granularity}: on an incremental model it makes idemc partitions; on a
// table or view it is only physical layout in dbt, ignored here.
func (l *dbtLoad) mapPartitionBy(m *Model, s dbtSetting, bad func(key, format string, args ...any)) {
	cfg := &m.Config
	if cfg.Materialized != "incremental" {
		l.warnIgnored("config partition_by on a table or view", s.pos.Path, s.pos.Line, "it sets physical layout only; idemc partitions incremental models")
		return
	}
	switch v := s.val.(type) {
	case string:
		cfg.PartitionBy = v
	case map[string]any:
		cfg.PartitionBy, _ = v["field"].(string)
		if g, ok := v["granularity"].(string); ok {
			cfg.Granularity = strings.ToLower(g)
		}
	default:
		bad("partition_by", "must be a column or {'field': 'col', 'data_type': 'date', 'granularity': 'day'}")
		return
	}
	if cfg.PartitionBy == "" {
		bad("partition_by", "needs a field: {'field': 'col', 'data_type': 'date'}")
		return
	}
	m.HeaderLine["partition_by"] = s.pos
	if cfg.Start == "" {
		bad("partition_by", "on an incremental model it makes idemc partitions, which need the first one: add begin='2026-01-01'")
	}
}

func dedupe(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// configCall is the text of one {{ config(...) }} call in a model.
type configCall struct {
	args string // between the parentheses
	line int    // of "config("
}

// extractConfig finds the {{ config(...) }} calls of a model body, read
// before rendering (DESIGN §15), and returns the body with each call
// blanked out (newlines kept, so lines keep their numbers).
func extractConfig(body string) ([]configCall, string) {
	var calls []configCall
	var b strings.Builder
	copied, at := 0, 0 // body[:copied] is in b; search from at
	for {
		i := strings.Index(body[at:], "{{")
		if i < 0 {
			break
		}
		start := at + i
		at = start + 2
		j := strings.IndexFunc(body[at:], func(r rune) bool { return !strings.ContainsRune("- \t\r\n", r) })
		if j < 0 {
			break
		}
		j += at
		after := strings.TrimLeft(body[j+min(6, len(body)-j):], " \t")
		if !strings.HasPrefix(body[j:], "config") || !strings.HasPrefix(after, "(") {
			continue
		}
		open := len(body) - len(after)
		closeAt := matchParen(body, open)
		if closeAt < 0 {
			continue // not a plain call: the render reports it
		}
		k := strings.Index(body[closeAt:], "}}")
		if k < 0 || strings.Trim(body[closeAt+1:closeAt+k], " \t\r\n-") != "" {
			continue
		}
		end := closeAt + k + 2
		calls = append(calls, configCall{args: body[open+1 : closeAt], line: strings.Count(body[:j], "\n") + 1})
		b.WriteString(body[copied:start])
		b.WriteString(blankKeepLines(body[start:end]))
		copied, at = end, end
	}
	if copied == 0 {
		return calls, body
	}
	b.WriteString(body[copied:])
	return calls, b.String()
}

// blankKeepLines replaces s with spaces, keeping its newlines.
func blankKeepLines(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		return ' '
	}, s)
}

// matchParen is the index of the parenthesis closing the one at open,
// skipping quoted strings; -1 when there is none.
func matchParen(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			k := strings.IndexByte(s[i+1:], c)
			if k < 0 {
				return -1
			}
			i += k + 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// sortedDBTKeys are a config layer's keys, sorted (deterministic errors).
func sortedDBTKeys(c dbtConfig) []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
