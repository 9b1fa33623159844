package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// dropStaleStages drops the tables that dead runs left beside the
// project's destinations, which a killed run never dropped: an HTTP
// source's landing table on every engine (sqlgen.HTTPLandingRun), and on
// StageTables dialects the stages and seed-load tables (Spark's stages
// are Delta tables; Spark's and Snowflake's seed loads fill a table
// aside). Each carries its run's tag. The running runs are read after the
// relations were listed: a unit writes its running row before it creates
// such a table, so every one listed whose unit still runs belongs to a
// run read here, and that run's tables are kept while it lives.
func (r *run) dropStaleStages(ctx context.Context, sess adapters.Session) error {
	if r.db == nil {
		return nil
	}
	stale := r.staleCandidates()
	if len(stale) == 0 {
		return nil
	}
	live := map[string]bool{sqlgen.RunTag(r.res.RunID): true}
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
		live[sqlgen.RunTag(row[0])] = live[sqlgen.RunTag(row[0])] || alive
	}
	for _, s := range stale {
		if live[s.tag] {
			continue
		}
		if _, err := adapters.ExecSQL(ctx, sess, r.d.DropTable(s.rel)); err != nil {
			return fmt.Errorf("dropping %s, a table a dead run left: %w", s.rel.Name, err)
		}
	}
	return nil
}

// staleStage is a table of a run beside a destination, and its run's tag.
type staleStage struct {
	rel plan.Relation
	tag string
}

// staleCandidates lists the listed relations that are a run's table
// beside one of the run's destinations: one pass over the catalog, each
// name cut at each "__idemc_" in it (a model's own name may hold one) and
// looked up among the destinations.
func (r *run) staleCandidates() []staleStage {
	st, _ := r.d.(adapters.StageTables)
	dests := make(map[plan.Relation]plan.Relation, len(r.tables))
	for _, dest := range r.tables {
		dests[r.db.key(dest)] = dest
	}
	var out []staleStage
	for rel := range r.db.relations {
		name := strings.ToLower(rel.Name)
		for i := strings.Index(name, "__idemc_"); i > 0; {
			if dest, ok := dests[plan.Relation{Schema: strings.ToLower(rel.Schema), Name: name[:i]}]; ok {
				tag, ok := sqlgen.HTTPLandingRun(dest.Name, rel.Name)
				if !ok && st != nil {
					tag, ok = st.StageRun(dest.Name, rel.Name)
				}
				if ok {
					out = append(out, staleStage{plan.Relation{Database: dest.Database, Schema: dest.Schema, Name: rel.Name}, tag})
					break
				}
			}
			j := strings.Index(name[i+1:], "__idemc_")
			if j < 0 {
				break
			}
			i += 1 + j
		}
	}
	return out
}
