package project

import (
	"time"

	"github.com/idemc/idemc/compiler/diag"
	"github.com/idemc/idemc/compiler/partition"
	"github.com/idemc/idemc/plan"
)

// Settled is what a model's settings imply once every layer is merged and
// the settings that depend on each other agree (settle).
type Settled struct {
	// Strategy is an incremental model's write strategy, defaulted from
	// partition_by or unique_key; "" for other models.
	Strategy string
	// Granularity is the partition granularity: "day" by default for a
	// partitioned incremental model, as written otherwise.
	Granularity string
	// FirstPartition is a partitioned incremental model's start, truncated
	// to its granularity; zero otherwise.
	FirstPartition time.Time
	// Checks are the [checks] table, typed: by kind, then column.
	Checks []Check
	// Lineage: the model's writes add _idemc_run_id and _idemc_as_of to
	// every row (lineage_columns on a table or incremental model).
	Lineage bool
	// Drift are the [drift] rules of a table or incremental model; nil
	// for none.
	Drift *Drift
}

// settle checks the settings that depend on each other, fills the defaults
// they imply and reads the checks, reporting errors at the line that set
// the setting (or line 1 of the model when a layer of project.toml did).
func (m *Model) settle(errs *diag.List) {
	m.settleWrite(errs)
	m.settleLineage(errs)
	m.Checks = m.readChecks(errs)
	m.settleDrift(errs)
}

// settleLineage decides whether the model's rows carry lineage columns.
// A view or an ephemeral model writes no rows of its own (a view's rows
// are its inputs' as they are now), so there is no write whose run id a
// row could carry: a project-wide lineage_columns skips them, and the
// model's own header asking for it is an error.
func (m *Model) settleLineage(errs *diag.List) {
	if !m.Config.LineageColumns {
		return
	}
	switch m.Config.Materialized {
	case plan.Table, plan.Incremental:
		m.Lineage = true
		return
	}
	if pos, set := m.HeaderLine["lineage_columns"]; set {
		errs.Add(pos.Path, pos.Line, 0, "lineage_columns applies to models that write rows (table or incremental); a %s has no rows of its own: remove lineage_columns or materialize the model as a table", m.Config.Materialized)
	}
}

// settingPos is where a setting was written, for errors about it.
func (m *Model) settingPos(key string) Pos {
	if p, ok := m.HeaderLine[key]; ok {
		return p
	}
	return Pos{m.Path, 1}
}

// settleWrite checks the settings that say how a model is written.
func (m *Model) settleWrite(errs *diag.List) {
	cfg := &m.Config
	bad := func(key, format string, args ...any) {
		pos := m.settingPos(key)
		errs.Add(pos.Path, pos.Line, 0, format, args...)
	}
	m.Granularity = cfg.Granularity
	if cfg.Materialized != plan.Incremental {
		for _, k := range []string{"strategy", "partition_by", "watermark", "lookback"} {
			if _, set := m.HeaderLine[k]; set {
				bad(k, "%s applies only to incremental models; add materialized = \"incremental\" or remove %s", k, k)
			}
		}
		return
	}
	if cfg.PartitionBy != "" && m.Granularity == "" {
		m.Granularity = "day"
	}
	if cfg.PartitionBy != "" {
		if cfg.Start == "" {
			bad("partition_by", "partitioned model needs start = \"2026-07-01\" (its first partition)")
		} else if t, err := partition.ParseTime(cfg.Start); err == nil {
			m.FirstPartition = partition.Truncate(t, m.Granularity)
		}
	}
	m.Strategy = cfg.Strategy
	if m.Strategy == "" {
		switch {
		case cfg.PartitionBy != "":
			m.Strategy = "delete_insert"
		case len(cfg.UniqueKey) > 0:
			m.Strategy = "merge"
		default:
			bad("materialized", "incremental model needs partition_by or unique_key to know what a rerun replaces (or strategy = \"append\" with allow_append = true)")
		}
	}
	switch m.Strategy {
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
