package runner

import (
	"context"
	"fmt"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// dropStaleStages drops the staging tables that dead runs left beside the
// project's destinations (StageTables dialects: Spark's stages are Delta
// tables, dropped by the unit's cleanup, which a killed run never ran).
// The running runs are read after the relations were listed: a unit
// writes its running row before it creates its stage, so every stage
// listed whose unit still runs belongs to a run read here, and that run's
// stages are kept while it lives.
func (r *run) dropStaleStages(ctx context.Context, sess adapters.Session) error {
	st, ok := r.d.(adapters.StageTables)
	if !ok || r.db == nil {
		return nil
	}
	type stage struct {
		rel plan.Relation
		tag string
	}
	var stale []stage
	for _, dest := range r.tables {
		key := r.db.key(dest)
		for rel := range r.db.relations {
			if rel.Schema != key.Schema {
				continue
			}
			if tag, ok := st.StageRun(dest.Name, rel.Name); ok {
				stale = append(stale, stage{plan.Relation{Database: dest.Database, Schema: dest.Schema, Name: rel.Name}, tag})
			}
		}
	}
	if len(stale) == 0 {
		return nil
	}
	live := map[string]bool{st.RunTag(r.res.RunID): true}
	_, rows, err := sess.Query(ctx, sqlgen.RunningQuery(r.d, r.state), 0)
	if err != nil {
		return err
	}
	locks := r.runLiveness() // nil on a single writer: every other run is dead
	for _, row := range rows {
		if locks == nil {
			continue
		}
		alive, err := locks.RunAlive(ctx, row[0])
		if err != nil {
			return err
		}
		live[st.RunTag(row[0])] = live[st.RunTag(row[0])] || alive
	}
	for _, s := range stale {
		if live[s.tag] {
			continue
		}
		if _, err := adapters.ExecSQL(ctx, sess, r.d.DropTable(s.rel)); err != nil {
			return fmt.Errorf("dropping %s, a stage a dead run left: %w", s.rel.Name, err)
		}
	}
	return nil
}
