package runner

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler"
	"github.com/idemc/idemc/plan"
)

// dbState is the compiler.State of a target, read in a few bulk queries
// before planning so that nothing is read per unit: the catalog (which
// relations exist), every unit's latest audit row and attempt number, and
// the high-water marks.
type dbState struct {
	relations map[plan.Relation]bool
	// defaultSchema is where relations without a schema live, so that a
	// target without `schema` finds its own tables.
	defaultSchema string
	latest        map[[2]string]compiler.Attempt
	keys          map[string][]string
	marks         map[string]string
	attempts      map[[2]string]int64
	empty         map[plan.Relation]bool
	// views are the relations the catalog lists as views, where it says
	// (a third column of RelationsQuery; Spark's SHOW TABLES does not).
	views map[plan.Relation]bool
}

func readState(ctx context.Context, s adapters.Session, d adapters.Dialect, st plan.State, tables, scope []plan.Relation) (*dbState, error) {
	out, err := readCatalog(ctx, s, d, scope)
	if err != nil {
		return nil, err
	}
	_, rows, err := s.Query(ctx, sqlgen.MarksQuery(d, st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		out.marks[r[0]] = r[1]
	}
	// Every unit's latest row, whose attempt is its highest (the ranking
	// orders by attempt first): one scan of the audit table, not two.
	_, rows, err = s.Query(ctx, sqlgen.StatusQuery(d, st), 0)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		n, err := strconv.ParseInt(r[3], 10, 64)
		if err != nil {
			n = -1
		}
		if a, err := strconv.ParseInt(r[4], 10, 64); err == nil {
			out.attempts[[2]string{r[0], r[1]}] = a
		}
		out.latest[[2]string{r[0], r[1]}] = compiler.Attempt{RunID: r[7], Status: r[2], Inputs: nullable(r[10]), DataVersion: nullable(r[11]), RowCount: n, CodeHash: nullable(r[8])}
		if r[1] != "" {
			out.keys[r[0]] = append(out.keys[r[0]], r[1])
		}
	}
	if err := out.probeEmpty(ctx, s, d, tables); err != nil {
		return nil, err
	}
	return out, nil
}

// emptyState is the state of a warehouse where nothing exists.
func emptyState() *dbState {
	return &dbState{relations: map[plan.Relation]bool{}, latest: map[[2]string]compiler.Attempt{}, keys: map[string][]string{}, marks: map[string]string{}, attempts: map[[2]string]int64{},
		empty: map[plan.Relation]bool{}, views: map[plan.Relation]bool{}}
}

// readCatalog is the state of a target as far as its catalog tells:
// which relations exist, and where relations without a schema live. Only
// the schemas of scope, the relations the caller looks up, are listed
// (nil: every schema).
func readCatalog(ctx context.Context, s adapters.Session, d adapters.Dialect, scope []plan.Relation) (*dbState, error) {
	out := emptyState()
	if q := d.DefaultSchemaQuery(); q != "" {
		_, rows, err := s.Query(ctx, q, 0)
		if err != nil {
			return nil, err
		}
		if len(rows) == 1 && rows[0][0] != "NULL" {
			out.defaultSchema = strings.ToLower(rows[0][0])
		}
	}
	rows, err := adapters.ListRelations(ctx, s, d, out.schemasOf(scope)) // SHOW TABLES on Spark
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		rel := plan.Relation{Schema: strings.ToLower(r[0]), Name: strings.ToLower(r[1])}
		out.relations[rel] = true
		if len(r) > 2 && strings.Contains(strings.ToUpper(r[2]), "VIEW") {
			out.views[rel] = true
		}
	}
	return out, nil
}

// probeBatch bounds the tables probed by one statement.
const probeBatch = 200

// probeEmpty finds which existing tables hold no row, in a few statements
// whatever the number of tables: a table emptied outside idemc is stale.
func (s *dbState) probeEmpty(ctx context.Context, sess adapters.Session, d adapters.Dialect, tables []plan.Relation) error {
	var have []plan.Relation
	for _, r := range tables {
		if s.Exists(r) {
			have = append(have, r)
		}
	}
	for len(have) > 0 {
		batch := have[:min(probeBatch, len(have))]
		have = have[len(batch):]
		_, rows, err := sess.Query(ctx, d.EmptyQuery(batch), 0)
		if err != nil {
			return err
		}
		for _, row := range rows {
			if i, err := strconv.Atoi(row[0]); err == nil && i < len(batch) {
				s.empty[s.key(batch[i])] = true
			}
		}
	}
	return nil
}

// schemasOf lists the schemas of rels as the catalog names them, sorted;
// nil (every schema) when rels is nil, or names a relation without a
// schema on an engine that does not say where those live.
func (s *dbState) schemasOf(rels []plan.Relation) []string {
	if rels == nil {
		return nil
	}
	seen := map[string]bool{}
	out := []string{}
	for _, r := range rels {
		sc := s.key(r).Schema
		if sc == "" {
			return nil
		}
		if !seen[sc] {
			seen[sc] = true
			out = append(out, sc)
		}
	}
	sort.Strings(out)
	return out
}

// catalogScope is what a run looks up in the catalog: every model's and
// seed's relation, and the state tables (by the audit table, when st
// names it).
func catalogScope(pl *plan.Plan, st plan.State) []plan.Relation {
	out := make([]plan.Relation, 0, len(pl.Nodes)+1)
	if st.Audit.Name != "" {
		out = append(out, st.Audit)
	}
	for _, n := range pl.Nodes {
		if n.Relation.Name != "" {
			out = append(out, n.Relation)
		}
	}
	return out
}

// tablesOf lists the relations of a project's seeds and table-like models.
func tablesOf(pl *plan.Plan) []plan.Relation {
	var out []plan.Relation
	for _, n := range pl.Nodes {
		if n.Seed || n.Materialized == plan.Table || n.Materialized == plan.Incremental {
			out = append(out, n.Relation)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Schema+"."+out[i].Name < out[j].Schema+"."+out[j].Name })
	return out
}

func nullable(s string) string {
	if s == "NULL" {
		return ""
	}
	return s
}

// nextAttempt is the attempt number of a unit's next audit row.
func (s *dbState) nextAttempt(job, partition string) int64 {
	return s.attempts[[2]string{job, partition}] + 1
}

func (s *dbState) Exists(r plan.Relation) bool { return s.relations[s.key(r)] }

// IsView reports a relation the catalog lists as a view.
func (s *dbState) IsView(r plan.Relation) bool { return s.views[s.key(r)] }

// Empty reports a table the probe found without rows.
func (s *dbState) Empty(r plan.Relation) bool { return s.empty[s.key(r)] }

// key is how a relation is looked up: lower case, in the default schema
// when it names none.
func (s *dbState) key(r plan.Relation) plan.Relation {
	schema := strings.ToLower(r.Schema)
	if schema == "" {
		schema = s.defaultSchema
	}
	return plan.Relation{Schema: schema, Name: strings.ToLower(r.Name)}
}

func (s *dbState) Latest(model, partition string) (compiler.Attempt, bool) {
	a, ok := s.latest[[2]string{model, partition}]
	return a, ok
}

func (s *dbState) Keys(model string) []string { return s.keys[model] }

// parseTime reads a timestamp as sessions print it (sqlgen.Text); an
// unreadable one counts as very old.
func parseTime(s string) time.Time {
	for _, l := range []string{"2006-01-02 15:04:05.999999", "2006-01-02 15:04:05.999999-07", "2006-01-02T15:04:05.999999Z07:00"} {
		if t, err := time.Parse(l, s); err == nil {
			return t
		}
	}
	return time.Time{}
}

func (s *dbState) HighWater(model string) (string, bool) {
	m, ok := s.marks[model]
	return m, ok && m != "NULL"
}
