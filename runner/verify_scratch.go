package runner

import (
	"context"
	"fmt"
	"hash/fnv"
	"os"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/plan"
)

// A verify killed with kill -9 (or stopped before its deferred drops ran)
// leaves its snapshot tables (<relation>__idemc_verify_<n>) and scratch
// schemas (<schema>__idemc_verify). Their names are fixed, so a later
// verify of other units never met them. claimScratch makes every verify
// first take the target's verify lock, then drop whatever such relations a
// dead verify left next to the plan's relations: a verify holding the lock
// is the only one alive. On a single-writer engine (DuckDB) the database
// file lock already says that.

// claimScratch takes the verify lock (engines with RunLocks, held until
// release) and drops dead verifies' scratch relations. Cleanup is best
// effort: an engine without information_schema keeps them.
func claimScratch(ctx context.Context, p *project.Project, target string, pl *plan.Plan, d adapters.VerifyDialect) (release func(), err error) {
	eng, ad, err := Connect(ctx, p, target)
	if err != nil {
		return nil, err
	}
	release = func() { eng.Close() }
	if locks, ok := eng.(adapters.RunLocks); ok && !ad.Capabilities.SingleWriter {
		unlock, err := locks.HoldRun(ctx, verifyLockID(p, pl))
		if err != nil {
			eng.Close()
			return nil, fmt.Errorf("runner: another idemc verify is running on target %s (its lock is held): %w; wait for it to finish", pl.Target, err)
		}
		release = func() { unlock(); eng.Close() }
	}
	sess, err := eng.Session(ctx)
	if err != nil {
		release()
		return nil, err
	}
	defer sess.Close()
	for _, q := range leftoverDrops(ctx, sess, pl, d) {
		_, _ = adapters.ExecSQL(ctx, sess, q)
	}
	if ad.Capabilities.SingleWriter {
		// The file lock must be free for the builds verify runs next.
		release()
		release = func() {}
	}
	return release, nil
}

// verifyLockID names the verify lock: one per server database and schema
// (MariaDB's locks are server-wide, so the DSN, which names the database,
// is part of it), hashed to fit MariaDB's 64-character lock names.
func verifyLockID(p *project.Project, pl *plan.Plan) string {
	h := fnv.New64a()
	if t := p.Targets[pl.Target]; t != nil {
		settings, _ := t.Resolve(os.LookupEnv)
		// The DSN without its secrets (however short): a changed password
		// names the same database.
		id := settings["dsn"]
		if ad, ok := adapters.Lookup(t.Engine); ok && ad.Secrets != nil {
			for _, s := range ad.Secrets(settings) {
				id = strings.ReplaceAll(id, s, "")
			}
		}
		h.Write([]byte(t.Engine + "\x00" + id + "\x00" + t.Schema))
	}
	return fmt.Sprintf("verify:%x", h.Sum64())
}

// leftoverDrops lists the DROP statements for scratch relations next to
// the plan's relations: a snapshot table is named by a relation of the
// same schema, a scratch schema by one of the plan's schemas.
func leftoverDrops(ctx context.Context, sess adapters.Session, pl *plan.Plan, d adapters.VerifyDialect) []string {
	names := map[string]plan.Relation{} // schema + "\x00" + name
	schemas := map[string]bool{}
	for _, n := range pl.Nodes {
		names[n.Relation.Schema+"\x00"+n.Relation.Name] = n.Relation
		schemas[n.Relation.Schema] = true
	}
	var out []string
	_, rows, err := sess.Query(ctx, "SELECT table_schema, table_name FROM information_schema.tables WHERE table_name LIKE '%idemc%verify%'", 0)
	if err == nil {
		for _, row := range rows {
			prefix, n, ok := strings.Cut(row[1], verifySuffix+"_")
			if !ok || !digits(n) {
				continue
			}
			// A relation without a schema lives in the session's default
			// one: dropped unqualified, it is found where idemc made it.
			rel, ok := names[row[0]+"\x00"+prefix]
			if !ok {
				rel, ok = names["\x00"+prefix]
			}
			if ok {
				rel.Name = row[1]
				out = append(out, "DROP TABLE IF EXISTS "+d.Qualify(rel))
			}
		}
	}
	_, rows, err = sess.Query(ctx, "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE '%idemc%verify'", 0)
	if err == nil {
		for _, row := range rows {
			if base, ok := strings.CutSuffix(row[0], verifySuffix); ok && schemas[base] {
				out = append(out, d.DropSchema(row[0]))
			}
		}
	}
	return out
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
