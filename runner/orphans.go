package runner

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// Orphan is a relation idemc wrote (a destination in idemc_latest) that no
// model or seed of the project produces any more: a renamed or deleted
// model, a changed schema or alias (issue 16).
type Orphan struct {
	Relation string   `json:"relation"` // qualified, as the engine spells it
	Schema   string   `json:"schema"`
	Name     string   `json:"name"`
	Kind     string   `json:"kind"`   // table or view
	Models   []string `json:"models"` // the jobs that wrote it
	rel      plan.Relation
}

// Orphans lists the target's orphans. Only destinations idemc_latest
// records are candidates, so a relation idemc did not write is never one;
// one that no longer exists is not listed.
func Orphans(ctx context.Context, p *project.Project, opts compiler.Options) ([]Orphan, error) {
	c, st, pl, err := orphanConn(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return findOrphans(ctx, c, st, pl)
}

// CleanOrphans drops the target's orphans (a table with DROP TABLE, a view
// with DROP VIEW) and deletes their idemc_latest rows, each relation in
// order; say receives every statement before it runs. With dryRun nothing
// runs.
func CleanOrphans(ctx context.Context, p *project.Project, opts compiler.Options, dryRun bool, say func(string)) ([]Orphan, error) {
	c, st, pl, err := orphanConn(ctx, p, opts)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	orphans, err := findOrphans(ctx, c, st, pl)
	if err != nil {
		return nil, err
	}
	d := c.ad.Dialect
	// Views first: one may read an orphan table (PostgreSQL refuses to
	// drop a table a view reads; nothing is dropped with CASCADE).
	sort.SliceStable(orphans, func(i, j int) bool { return orphans[i].Kind == "view" && orphans[j].Kind != "view" })
	for _, o := range orphans {
		// Never CASCADE (the dialect's DropTable does on PostgreSQL): a
		// view someone made on an orphan makes the drop fail, naming it.
		drop := "DROP TABLE IF EXISTS " + d.Qualify(o.rel)
		if o.Kind == "view" {
			drop = "DROP VIEW IF EXISTS " + d.Qualify(o.rel)
		}
		forget := sqlgen.LatestForget(d, st, o.Schema, o.Name)
		for _, q := range []string{drop, forget} {
			say(q)
			if dryRun {
				continue
			}
			if _, err := adapters.ExecSQL(ctx, c.sess, q); err != nil {
				return nil, fmt.Errorf("dropping the orphan %s: %w", o.Relation, err)
			}
		}
	}
	return orphans, nil
}

// orphanConn compiles the whole project (every node's relation, whatever
// the selection) and opens its target, whose idemc_latest must exist.
func orphanConn(ctx context.Context, p *project.Project, opts compiler.Options) (*conn, plan.State, *plan.Plan, error) {
	opts.Models, opts.NoUnits, opts.LintOnly = false, true, true
	opts.Select, opts.Exclude = nil, nil
	pl, err := compiler.Compile(p, opts)
	if err != nil {
		return nil, plan.State{}, nil, err
	}
	c, err := openConn(ctx, p, opts.Target)
	if err != nil {
		return nil, plan.State{}, nil, err
	}
	st, err := readable(ctx, c.sess, c.ad.Dialect, stateOf(p, pl.Target))
	if err == nil && (st.Latest.Name == "" || !sqlgen.HasLatest(c.ad.Dialect)) {
		err = fmt.Errorf("--orphans reads the destinations idemc wrote from idemc_latest, which this target does not have yet (%s keeps it; a build with work creates it)",
			"DuckDB, PostgreSQL and MySQL/MariaDB")
	}
	if err != nil {
		c.Close()
		return nil, plan.State{}, nil, err
	}
	return c, st, pl, nil
}

func findOrphans(ctx context.Context, c *conn, st plan.State, pl *plan.Plan) ([]Orphan, error) {
	db, err := readCatalog(ctx, c.sess, c.ad.Dialect, nil) // every schema: a destination idemc_latest names may be in any
	if err != nil {
		return nil, err
	}
	produced := map[plan.Relation]bool{}
	for _, n := range pl.Nodes {
		if n.Relation.Name != "" {
			produced[db.key(n.Relation)] = true
		}
	}
	_, rows, err := c.sess.Query(ctx, sqlgen.LatestDestinations(c.ad.Dialect, st), 0)
	if err != nil {
		return nil, fmt.Errorf("reading idemc_latest: %w", err)
	}
	byRel := map[plan.Relation]*Orphan{}
	var out []*Orphan
	for _, r := range rows {
		rel := plan.Relation{Schema: nullable(r[0]), Name: r[1]}
		k := db.key(rel)
		if produced[k] || !db.Exists(rel) || isStateTable(k, db.key(st.Audit)) {
			continue
		}
		o := byRel[k]
		if o == nil {
			kind, err := catalogKindOf(ctx, c, db, rel)
			if err != nil {
				return nil, err
			}
			o = &Orphan{Relation: c.ad.Dialect.Qualify(rel), Schema: rel.Schema, Name: rel.Name, Kind: kind, rel: rel}
			byRel[k] = o
			out = append(out, o)
		}
		o.Models = append(o.Models, r[2])
	}
	res := make([]Orphan, len(out))
	for i, o := range out {
		sort.Strings(o.Models)
		res[i] = *o
	}
	sort.Slice(res, func(i, j int) bool { return res[i].Relation < res[j].Relation })
	return res, nil
}

// isStateTable guards idemc's own tables (never a destination, but a model
// named idemc_audit in the state schema would be refused elsewhere).
func isStateTable(k, audit plan.Relation) bool {
	return k.Schema == audit.Schema && strings.HasPrefix(k.Name, "idemc_")
}

// catalogKindOf is "view" or "table", from information_schema.tables
// (the engines that keep idemc_latest have it).
func catalogKindOf(ctx context.Context, c *conn, db *dbState, rel plan.Relation) (string, error) {
	k := db.key(rel)
	d := c.ad.Dialect
	q := fmt.Sprintf("SELECT table_type FROM information_schema.tables WHERE lower(table_schema) = %s AND lower(table_name) = %s",
		d.String(k.Schema), d.String(k.Name))
	_, rows, err := c.sess.Query(ctx, q, 1)
	if err != nil {
		return "", err
	}
	if len(rows) > 0 && strings.Contains(strings.ToUpper(rows[0][0]), "VIEW") {
		return "view", nil
	}
	return "table", nil
}
