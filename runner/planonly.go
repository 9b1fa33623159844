package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// Plan is idemc plan: the units a build with the same options would run
// now, each with its reason, and those it would leave up to date. It reads
// the target's state as Build does and writes nothing: not the state
// tables, not target/compiled.
func Plan(ctx context.Context, p *project.Project, o compiler.Options) (*plan.Plan, error) {
	o.NoRecipes, o.Explain, o.Models = true, true, true
	prep, err := compiler.Prepare(p, o)
	if err != nil {
		return nil, err
	}
	pre, err := prep.Plan(o)
	if err != nil {
		return nil, err
	}
	c, err := openExisting(ctx, p, o.Target)
	if errors.Is(err, ErrNoWarehouse) {
		o.State = emptyState() // nothing built: every unit runs
		return prep.Plan(o)
	}
	if err != nil {
		return nil, err
	}
	defer c.Close()
	st := stateOf(p, o.Target)
	db, err := readStateNoWrite(ctx, c, st, tablesOf(pre), catalogScope(pre, st))
	if err != nil {
		return nil, fmt.Errorf("runner: reading the audit table: %w", err)
	}
	o.State = db
	return prep.Plan(o)
}

// readStateNoWrite is readState on a target whose state tables may not
// exist yet (nothing has run): then only the catalog is read.
func readStateNoWrite(ctx context.Context, c *conn, st plan.State, tables, scope []plan.Relation) (*dbState, error) {
	for _, r := range []plan.Relation{st.Audit, st.Marks} {
		if _, ok, err := c.sess.Relation(ctx, r); err != nil {
			return nil, err
		} else if !ok {
			return catalogOnly(ctx, c, tables, scope)
		}
	}
	st, err := readable(ctx, c.sess, c.ad.Dialect, st)
	if err != nil {
		return nil, err
	}
	return readState(ctx, c.sess, c.ad.Dialect, st, tables, scope)
}

func catalogOnly(ctx context.Context, c *conn, tables, scope []plan.Relation) (*dbState, error) {
	out, err := readCatalog(ctx, c.sess, c.ad.Dialect, scope)
	if err != nil {
		return nil, err
	}
	return out, out.probeEmpty(ctx, c.sess, c.ad.Dialect, tables)
}
