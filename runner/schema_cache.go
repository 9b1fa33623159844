package runner

import (
	"context"
	"strings"
	"sync"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// knownDests remembers, per relation, the columns an incremental model's
// destination had when a unit of this run last resolved its recipe without
// changing its definition, so that the model's other partitions skip the
// catalog reads (the kind query, the column listing): a 365-partition
// backfill read the catalog 365 times for the same answer (issue 18). Only
// the run changes a destination while it runs (per-unit locks on live
// engines, DuckDB's file lock), and every change of one goes through the
// relation's DDL lock, which also guards its entry here.
type knownDests map[plan.Relation][]plan.Column

// cachedRecipe is resolveRecipe for a unit whose destination an earlier
// unit of this run already resolved: the batch is described (it is the
// unit's own SELECT) and, when its columns are the destination's known
// ones, the recipe is built without reading the catalog. ok is false when
// the unit must take the full path (no entry, or columns that differ).
// Called under the relation's DDL lock.
func (r *run) cachedRecipe(ctx context.Context, sess adapters.Session, w *plan.Write) ([]plan.Step, bool, error) {
	if !cacheable(w) {
		return nil, false, nil
	}
	r.mu.Lock()
	dest, ok := r.known[w.Target]
	r.mu.Unlock()
	if !ok {
		return nil, false, nil
	}
	batch, err := sess.Columns(ctx, r.d.DescribeQuery(w.Select))
	if err != nil {
		return nil, false, err
	}
	if len(batch) != len(dest) || !diffColumns(r.d, dest, batch).empty() {
		// The full path decides, from the catalog; the entry is
		// remembered again only once it resolved.
		r.mu.Lock()
		delete(r.known, w.Target)
		r.mu.Unlock()
		return nil, false, nil
	}
	w.Columns = make([]string, len(batch))
	for i, c := range batch {
		w.Columns[i] = c.Name
	}
	// The recipe keeps its (idempotent) prepare steps: the partitions of
	// a model run the same numbered steps, so that one error on several of
	// them is explained once.
	return sqlgen.Recipe(r.d, w), true, nil
}

// cacheable: the units whose destination's columns may be remembered, an
// incremental model's partitions that do not replace its definition.
func cacheable(w *plan.Write) bool {
	return w.Materialized == plan.Incremental && !w.Replace && !w.Recreate && w.Schema == nil
}

// rememberDest records the destination's columns once a unit resolved its
// recipe: the batch's (ddl.batch), which the destination has, or gets from
// the recipe's prepare steps, when the recipe changes nothing; a change
// forgets them, so that the next unit reads the catalog again.
func (r *run) rememberDest(w *plan.Write, batch []plan.Column, changes bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if changes || !cacheable(w) || batch == nil {
		delete(r.known, w.Target)
		return
	}
	if r.known == nil {
		r.known = knownDests{} // a run made without newRun (tests)
	}
	r.known[w.Target] = batch
}

// kindSnapshot is every relation's kind as the catalog listed it in one
// query, read the first time a unit of the run asks: the first unit of
// each relation takes its kind from it instead of a catalog query of its
// own (issue 18: information_schema.tables was ~1 ms of every table
// unit on DuckDB). Only that first ask: a unit may change its
// relation's kind, and the ones after it ask the catalog again.
type kindSnapshot struct {
	mu    sync.Mutex
	kinds map[plan.Relation]string // nil until read
	asked map[plan.Relation]bool
}

// first reports the kind of rel from the snapshot, ok false when a unit of
// the run asked before (the catalog decides).
func (k *kindSnapshot) first(ctx context.Context, r *run, s adapters.Session, rel plan.Relation) (string, bool, error) {
	if k == nil || !snapshotKinds[r.d.Name()] {
		return "", false, nil
	}
	key := r.db.key(rel)
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.asked[key] {
		return "", false, nil
	}
	if k.kinds == nil {
		_, rows, err := s.Query(ctx, "SELECT table_schema, table_name, table_type FROM information_schema.tables", 0)
		if err != nil {
			return "", false, err
		}
		k.kinds, k.asked = map[plan.Relation]string{}, map[plan.Relation]bool{}
		for _, row := range rows {
			kind := "table"
			if strings.Contains(strings.ToUpper(row[2]), "VIEW") {
				kind = "view"
			}
			k.kinds[plan.Relation{Schema: strings.ToLower(row[0]), Name: strings.ToLower(row[1])}] = kind
		}
	}
	k.asked[key] = true
	return k.kinds[key], true, nil
}

// snapshotKinds are the engines whose information_schema.tables lists
// every schema's relations, unqualified, as catalogKind reads them.
var snapshotKinds = map[string]bool{"duckdb": true, "postgres": true, "mysql": true}
