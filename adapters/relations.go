package adapters

import (
	"context"
	"strings"
	"time"
)

// RelationLister is implemented by sessions of engines whose relations no
// single query lists: open-source Spark has no information_schema (it is
// Unity Catalog's), and SHOW TABLES reads one schema at a time.
type RelationLister interface {
	// Relations lists the existing tables and views of schemas (lower
	// case; nil: every schema) as (schema, name) rows.
	Relations(ctx context.Context, schemas []string) ([][]string, error)
}

// SessionWrapper is a session that decorates another (the runner's
// statement counter and tracer); Unwrap returns the one it wraps, so that
// an optional interface of the engine's session is still found.
type SessionWrapper interface {
	Unwrap() Session
}

// ListRelations lists the existing relations of schemas (nil: of every
// schema) as (schema, name) rows: the session's own way when it has one
// (Spark: SHOW TABLES in each schema asked for, not in every schema of a
// metastore that may hold thousands), else the dialect's RelationsQuery,
// its rows of other schemas left out, so that every engine answers alike.
func ListRelations(ctx context.Context, s Session, d CatalogSQL, schemas []string) ([][]string, error) {
	for inner := s; inner != nil; {
		if l, ok := inner.(RelationLister); ok {
			return l.Relations(ctx, schemas)
		}
		w, ok := inner.(SessionWrapper)
		if !ok {
			break
		}
		inner = w.Unwrap()
	}
	_, rows, err := s.Query(ctx, d.RelationsQuery(), 0)
	if err != nil || schemas == nil {
		return rows, err
	}
	want := make(map[string]bool, len(schemas))
	for _, sc := range schemas {
		want[strings.ToLower(sc)] = true
	}
	out := rows[:0]
	for _, r := range rows {
		if want[strings.ToLower(r[0])] {
			out = append(out, r)
		}
	}
	return out, nil
}

// HeartbeatSQL spells the run heartbeats (sqlgen.Gen has them), the
// liveness of a run on engines without RunLocks (Snowflake, BigQuery,
// Spark): see sqlgen/heartbeat.go.
type HeartbeatSQL interface {
	HeartbeatDDL(s State) string
	Heartbeat(s State, runID, host string, pid int, at time.Time) string
	HeartbeatQuery(s State, runID string, since time.Time) string
	HeartbeatEnd(s State, runID string, before time.Time) string
}

// ClaimSQL spells the lock table of unit claims (sqlgen/claim.go), on
// engines whose Capabilities say UnitClaim: created, and a run's rows
// deleted, with the run's heartbeats.
type ClaimSQL interface {
	ClaimDDL(s State) string
	ClaimsEnd(s State, runID string) string
}

// RelationKinder is implemented by sessions of engines without
// information_schema (Spark): RelationKind is "view", "table", or "" when
// the relation (or its schema) does not exist.
type RelationKinder interface {
	RelationKind(ctx context.Context, r Relation) (string, error)
}

// SessionKind asks the session's RelationKinder, through wrappers; ok is
// false when the session has none (read information_schema.tables).
func SessionKind(ctx context.Context, s Session, r Relation) (kind string, ok bool, err error) {
	for inner := s; inner != nil; {
		if k, found := inner.(RelationKinder); found {
			kind, err = k.RelationKind(ctx, r)
			return kind, true, err
		}
		w, found := inner.(SessionWrapper)
		if !found {
			break
		}
		inner = w.Unwrap()
	}
	return "", false, nil
}

// runKey is the context key of the run a statement belongs to.
type runKey struct{}

// WithRun tells the engine which run ctx's work belongs to (a seed load
// names its aside table by it: StageTables).
func WithRun(ctx context.Context, runID string) context.Context {
	return context.WithValue(ctx, runKey{}, runID)
}

// RunOf is the run WithRun gave ctx, "" for none.
func RunOf(ctx context.Context) string {
	id, _ := ctx.Value(runKey{}).(string)
	return id
}

// StageTables is implemented by dialects whose staging tables are
// permanent tables that a dead run leaves behind (Spark's Delta stages):
// the next run drops those whose run is not alive.
type StageTables interface {
	// StageRun reports whether name is a stage of the destination dest,
	// or a seed load's aside table of it, and, if so, the run tag it
	// carries.
	StageRun(dest, name string) (tag string, ok bool)
	// RunTag is the tag the stages of run carry.
	RunTag(runID string) string
}
