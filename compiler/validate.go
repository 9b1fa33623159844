package compiler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/analyze"
	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
)

// validateModel checks settings that depend on each other and fills defaults.
func validateModel(c *compiled, errs *diag.List) {
	cfg := c.cfg
	at := func(key string) (string, int) {
		if p, ok := c.m.HeaderLine[key]; ok {
			return p.Path, p.Line
		}
		return c.m.Path, 1
	}
	bad := func(key, format string, args ...any) {
		path, line := at(key)
		errs.Add(path, line, 0, format, args...)
	}
	c.gran = cfg.Granularity
	if cfg.Materialized != adapters.Incremental {
		for _, k := range []string{"strategy", "partition_by", "watermark", "lookback"} {
			if _, set := c.m.HeaderLine[k]; set {
				bad(k, "%s applies only to incremental models; add materialized = \"incremental\" or remove %s", k, k)
			}
		}
		return
	}
	if cfg.PartitionBy != "" && c.gran == "" {
		c.gran = "day"
	}
	if cfg.PartitionBy != "" {
		if cfg.Start == "" {
			bad("partition_by", "partitioned model needs start = \"2026-07-01\" (its first partition)")
		} else if t, err := partition.ParseTime(cfg.Start); err == nil {
			c.start = partition.Truncate(t, c.gran)
		}
	}
	c.strategy = cfg.Strategy
	if c.strategy == "" {
		switch {
		case cfg.PartitionBy != "":
			c.strategy = "delete_insert"
		case len(cfg.UniqueKey) > 0:
			c.strategy = "merge"
		default:
			bad("materialized", "incremental model needs partition_by or unique_key to know what a rerun replaces (or strategy = \"append\" with allow_append = true)")
		}
	}
	switch c.strategy {
	case "merge":
		if len(cfg.UniqueKey) == 0 {
			bad("strategy", "strategy = \"merge\" needs unique_key = [\"...\"]")
		}
	case "insert_overwrite":
		if cfg.PartitionBy == "" {
			bad("strategy", "strategy = \"insert_overwrite\" needs partition_by")
		}
	case "delete_insert":
		if cfg.PartitionBy == "" && len(cfg.UniqueKey) == 0 {
			bad("strategy", "strategy = \"delete_insert\" needs partition_by or unique_key")
		}
	}
	if cfg.Watermark != nil && cfg.PartitionBy != "" {
		bad("watermark", "watermark is for unpartitioned models; a partitioned model reads its window through start and end")
	}
	if len(cfg.MergeUpdateColumns) > 0 && len(cfg.MergeExcludeColumns) > 0 {
		bad("merge_update_columns", "set merge_update_columns or merge_exclude_columns, not both")
	}
}

// buildChecks turns the [checks] table into checks, positioned errors for
// bad values, and upstream models the checks read.
func (cc *compilation) buildChecks(c *compiled, parser *analyze.Parser) []*adapters.Check {
	p, seeds, models, errs := cc.p, cc.plan.Nodes, cc.models, &cc.errs
	var out []*adapters.Check
	keys := make([]string, 0, len(c.cfg.Checks))
	for k := range c.cfg.Checks {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	at := func(kind string) (string, int) {
		if pos, ok := c.m.HeaderLine["checks."+kind]; ok {
			return pos.Path, pos.Line
		}
		return c.m.Path, 1
	}
	relationOf := func(kind, name string) (adapters.Relation, bool) {
		if m := models[name]; m != nil {
			c.extraUp = append(c.extraUp, name)
			return m.rel, true
		}
		if s := seeds[name]; s != nil && s.Seed {
			c.extraUp = append(c.extraUp, name)
			return s.Relation, true
		}
		if i := strings.IndexByte(name, '.'); i > 0 {
			if src := p.Sources[name[:i]]; src != nil && contains(src.Tables, name[i+1:]) {
				return adapters.Relation{Database: src.Database, Schema: src.Schema, Name: name[i+1:]}, true
			}
		}
		path, line := at(kind)
		errs.Add(path, line, 0, "checks.%s: %q is neither a model, a seed nor a declared source table (source.table)", kind, name)
		return adapters.Relation{}, false
	}
	for _, kind := range keys {
		raw := c.cfg.Checks[kind].Value
		sev := "error"
		val := raw
		path, line := at(kind)
		if m, ok := raw.(map[string]any); ok {
			if s, ok := m["severity"]; ok {
				sev = fmt.Sprint(s)
				if sev != "error" && sev != "warn" {
					errs.Add(path, line, 0, "checks.%s: severity %q is not valid; use \"error\" or \"warn\"", kind, sev)
				}
				cp := map[string]any{}
				for k, v := range m {
					if k != "severity" {
						cp[k] = v
					}
				}
				val = cp
				if v, ok := cp["value"]; ok {
					val = v
				} else if v, ok := cp["columns"]; ok {
					val = v
				}
			}
		}
		switch kind {
		case "unique", "not_null":
			cols, ok := stringList(val)
			if !ok || len(cols) == 0 {
				errs.Add(path, line, 0, "checks.%s must be a list of columns: %s = [\"a\", \"b\"]", kind, kind)
				continue
			}
			out = append(out, &adapters.Check{Name: kind + "(" + strings.Join(cols, ", ") + ")", Kind: kind, Severity: sev, Columns: cols})
		case "accepted_values":
			m, ok := val.(map[string]any)
			if !ok || len(m) == 0 {
				errs.Add(path, line, 0, "checks.accepted_values must be a table: accepted_values = { status = [\"ok\", \"void\"] }")
				continue
			}
			for _, col := range sortedKeys(m) {
				vals, ok := stringList(m[col])
				if !ok {
					errs.Add(path, line, 0, "checks.accepted_values.%s must be a list of values", col)
					continue
				}
				out = append(out, &adapters.Check{Name: "accepted_values(" + col + ")", Kind: kind, Severity: sev, Columns: []string{col}, Values: vals})
			}
		case "relationships":
			m, ok := val.(map[string]any)
			if !ok || len(m) == 0 {
				errs.Add(path, line, 0, "checks.relationships must be a table: relationships = { user_id = \"dim_users.user_id\" }")
				continue
			}
			for _, col := range sortedKeys(m) {
				ref, _ := m[col].(string)
				i := strings.LastIndexByte(ref, '.')
				if i <= 0 {
					errs.Add(path, line, 0, "checks.relationships.%s must name model.column, e.g. \"dim_users.user_id\"", col)
					continue
				}
				rel, ok := relationOf(kind, ref[:i])
				if !ok {
					continue
				}
				out = append(out, &adapters.Check{Name: "relationships(" + col + " -> " + ref + ")", Kind: kind, Severity: sev, Columns: []string{col}, To: rel, ToColumn: ref[i+1:]})
			}
		case "row_count_matches":
			m, ok := val.(map[string]any)
			src, _ := m["source"].(string)
			col, _ := m["column"].(string)
			if !ok || src == "" {
				errs.Add(path, line, 0, "checks.row_count_matches needs a source: row_count_matches = { source = \"raw.staging_events\", column = \"event_date\" }")
				continue
			}
			if col == "" {
				col = c.cfg.PartitionBy
			}
			rel, ok := relationOf(kind, src)
			if !ok {
				continue
			}
			out = append(out, &adapters.Check{Name: "row_count_matches(" + src + ")", Kind: kind, Severity: sev, Source: rel, SourceColumn: col})
		case "min_rows":
			n, ok := val.(int64)
			if !ok || n < 0 {
				errs.Add(path, line, 0, "checks.min_rows must be a whole number: min_rows = 1 or min_rows = { value = 1, severity = \"warn\" }")
				continue
			}
			out = append(out, &adapters.Check{Name: "min_rows(" + strconv.FormatInt(n, 10) + ")", Kind: kind, Severity: sev, MinRows: n})
		case "expect":
			exprs, ok := stringList(val)
			if !ok || len(exprs) == 0 {
				errs.Add(path, line, 0, "checks.expect must be a list of boolean aggregate expressions: expect = [\"sum(amount) >= 0\"]")
				continue
			}
			for i, e := range exprs {
				// Pasted into the check query as is: it must stay one
				// expression there (no second statement, on any engine).
				if err := parser.CheckExpr(e); err != nil {
					errs.Add(path, line, 0, "checks.expect[%d]: %q is not one SQL expression: %v", i+1, e, err)
					continue
				}
				out = append(out, &adapters.Check{Name: "expect(" + e + ")", Kind: kind, Severity: sev, Expr: e})
			}
		}
	}
	return out
}

func stringList(v any) ([]string, bool) {
	switch x := v.(type) {
	case string:
		return []string{x}, true
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}
