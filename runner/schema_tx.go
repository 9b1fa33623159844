package runner

import (
	"context"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// schemaDDL runs or collects a unit's schema changes (on_schema_change, a
// full refresh recreating its table, a changed materialization). Where DDL
// is transactional (DuckDB, PostgreSQL) the changes become steps of the
// unit's transaction, right after BEGIN and its lock, so a failed check, a
// failed statement or a crash rolls them back with the write (DESIGN §1,
// all or nothing); elsewhere they run at once, before the transaction.
type schemaDDL struct {
	sess     adapters.Session
	deferred bool
	// aside: the statements are collected for a copy of the destination
	// (sqlgen.Recipe) on an engine whose DDL commits on its own; asideName
	// names that copy.
	aside     bool
	asideName func(plan.Relation, string) plan.Relation
	// emptyCopy: the copy starts without rows (its old values cannot take
	// the new types, and the run rewrites every row).
	emptyCopy bool
	begin     string // the recipe's BEGIN, for trial transactions
	rollback  string
	steps     []plan.Step
	// reprepare is where among steps the recipe's prepare steps run again
	// (plan.SchemaChange.ReprepareAt); -1 for nowhere.
	reprepare int
	batch     []plan.Column // the batch's columns, once syncSchema described it
}

func (r *run) newSchemaDDL(sess adapters.Session, w *plan.Write) *schemaDDL {
	k := &schemaDDL{sess: sess, begin: r.d.Begin(), rollback: r.d.Rollback(), reprepare: -1}
	k.deferred = r.ad.Capabilities.TransactionalDDL && k.begin != "" && k.rollback != ""
	if _, ok := r.d.(adapters.AsideBuilder); ok && !k.deferred && w.Materialized != plan.View {
		k.aside, k.asideName = true, r.asideOf
	}
	return k
}

// target is the relation the schema statements change: the destination,
// or its copy (sqlgen.Recipe).
func (k *schemaDDL) target(rel plan.Relation) plan.Relation {
	if k.aside {
		return k.asideName(rel, "__idemc_new")
	}
	return rel
}

// exec runs a schema statement now, or adds it to the unit's transaction.
func (k *schemaDDL) exec(ctx context.Context, sql, comment string) error {
	if k.deferred || k.aside {
		k.steps = append(k.steps, plan.Step{Purpose: plan.SchemaStep, Comment: comment, SQL: sql})
		return nil
	}
	_, err := adapters.ExecSQL(ctx, k.sess, sql)
	return err
}

// try runs statements in a transaction that it rolls back: whether they
// would succeed on the data (a value that cannot take a column's new type)
// without changing anything. It returns the statement that failed.
func (k *schemaDDL) try(ctx context.Context, stmts []string) (string, error) {
	if _, err := adapters.ExecSQL(ctx, k.sess, k.begin); err != nil {
		return k.begin, err
	}
	defer func() { _, _ = adapters.ExecSQL(context.WithoutCancel(ctx), k.sess, k.rollback) }()
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(ctx, k.sess, q); err != nil {
			return q, err
		}
	}
	return "", nil
}

// inTransaction drops the BEGIN and COMMIT a dialect wraps several DDL
// statements in (RetypeColumns): inside the unit's transaction they would
// nest or commit early.
func (k *schemaDDL) inTransaction(stmts []string) []string {
	var out []string
	for _, q := range stmts {
		t := strings.ToUpper(strings.TrimSpace(q))
		if t == strings.ToUpper(k.begin) || t == "BEGIN" || t == "BEGIN TRANSACTION" || t == "COMMIT" {
			continue
		}
		out = append(out, q)
	}
	return out
}

// asideOf names a relation beside rel (sqlgen.AsideOf).
func (r *run) asideOf(rel plan.Relation, suffix string) plan.Relation {
	return sqlgen.AsideOf(r.d, rel, suffix)
}
