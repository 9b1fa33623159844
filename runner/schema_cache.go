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
type knownDests map[plan.Relation]*knownDest

// knownDest is what the run knows of one destination: its columns, and
// whether a unit of the run sent the recipe's prepare steps (the CREATE …
// IF NOT EXISTS of the table and its partition index) since the entry was
// made, so that later partitions do not send them again (issue 18, item 5:
// ~0.4 ms of every backfill unit on DuckDB, two round trips on the servers).
type knownDest struct {
	cols     []plan.Column
	prepared bool
}

// cachedRecipe is resolveRecipe for a unit whose destination an earlier
// unit of this run already resolved: the batch is described (it is the
// unit's own SELECT) and, when its columns are the destination's known
// ones, the recipe is built without reading the catalog. ok is false when
// the unit must take the full path (no entry, or columns that differ);
// prepared says an earlier unit of the run sent the prepare steps since.
// Called under the relation's DDL lock.
func (r *run) cachedRecipe(ctx context.Context, sess adapters.Session, w *plan.Write) (steps []plan.Step, prepared, ok bool, err error) {
	if !cacheable(w) {
		return nil, false, false, nil
	}
	r.mu.Lock()
	entry := r.known[w.Target]
	r.mu.Unlock()
	if entry == nil {
		return nil, false, false, nil
	}
	dest := entry.cols
	batch, err := sess.Columns(ctx, r.d.DescribeQuery(w.Select))
	if err != nil {
		return nil, false, false, err
	}
	if len(batch) != len(dest) || !diffColumns(r.d, dest, batch).empty() {
		// The full path decides, from the catalog; the entry is
		// remembered again only once it resolved.
		r.mu.Lock()
		delete(r.known, w.Target)
		r.mu.Unlock()
		return nil, false, false, nil
	}
	w.Columns = make([]string, len(batch))
	for i, c := range batch {
		w.Columns[i] = c.Name
	}
	// The recipe keeps its (idempotent) prepare steps: the partitions of
	// a model have the same numbered steps, so that one error on several of
	// them is explained once; the runner skips those already sent
	// (skipPrepared).
	r.mu.Lock()
	prepared = entry.prepared
	r.mu.Unlock()
	return sqlgen.Recipe(r.d, w), prepared, true, nil
}

// markPrepared records that a unit sent its recipe's prepare steps: the
// destination and its index exist as the entry's columns say, so the
// relation's later units skip them, until the entry is forgotten.
func (r *run) markPrepared(w *plan.Write) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e := r.known[w.Target]; e != nil {
		e.prepared = true
	}
}

// skipPrepared marks a recipe's prepare steps as not sent, which the
// unit's compiled file shows (what runs is what the file says).
func skipPrepared(steps []plan.Step) {
	for i := range sqlgen.LeadingPrepare(steps) {
		steps[i].NotSent = "an earlier unit of this run sent it for the same destination"
	}
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
	r.known[w.Target] = &knownDest{cols: batch}
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
