// Package dialect is MySQL's and MariaDB's SQL: pure, no driver, so that
// the compiler and the goldens link none (the engine is adapters/mysql).
package dialect

import (
	"cmp"
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is MySQL's and MariaDB's SQL.
type Dialect struct {
	sqlgen.Gen
	// LockWait bounds the wait for a destination's lock (0: DefaultLockWait);
	// tests shorten it.
	LockWait time.Duration
}

// NewDialect returns the MySQL/MariaDB dialect.
func NewDialect() Dialect {
	return Dialect{Gen: sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		SeedTypes:     sqlgen.SeedTypes{seed.Timestamp: "DATETIME(6)", seed.Text: "TEXT"},
		IdentLimit:    adapters.IdentLimit{Name: 64, Column: 64},
		CurrentSchema: "DATABASE()",
		Engine:        "mysql", QuoteOpen: '`', QuoteEnd: '`', TextType: "CHAR", RunIDCast: "CHAR(255)",
		NullSafeEq: func(a, b string) string { return a + " <=> " + b },
		Timestamp:  "DATETIME(6)", Text: "TEXT",
		// TEXT cannot be indexed whole: the key columns are VARCHARs, so
		// that each unit's audit UPDATE reads (and InnoDB locks) its own
		// row, not every row of the table (auditKeyMigration).
		KeyText: "VARCHAR(255)", AuditIndex: true,
		Latest: sqlgen.LatestOnDuplicate, NameText: "VARCHAR(64)",
		HexToInt:              func(h string) string { return "CAST(conv(" + h + ", 16, 10) AS UNSIGNED)" },
		StringEscapeBackslash: true,
		DeleteFrom:            func(dest, alias string) string { return "DELETE " + alias + " FROM " + dest + " AS " + alias },
		TypeFamily:            sqlgen.Families(typeFamilies, false),
		ColumnType:            columnType,
	}}}
}

// typeFamilies are MySQL's and MariaDB's type names by family, as
// go-sql-driver/mysql names a result column (VARCHAR, UNSIGNED INT) and as
// information_schema.columns.data_type does (varchar, int). Strings of any
// length are one family (a VARCHAR batch column is added as TEXT);
// DECIMAL precision is not compared (the driver does not report it);
// signedness is not compared (data_type does not report it). A value that
// does not fit fails the insert in strict mode (the unit rolls back).
var typeFamilies = map[string][]string{
	"tinyint": {"TINYINT", "UNSIGNED TINYINT"}, "smallint": {"SMALLINT", "UNSIGNED SMALLINT"},
	"mediumint": {"MEDIUMINT", "UNSIGNED MEDIUMINT"}, "int": {"INT", "INTEGER", "UNSIGNED INT"},
	"bigint": {"BIGINT", "UNSIGNED BIGINT"}, "decimal": {"DECIMAL", "NUMERIC"},
	"float": {"FLOAT"}, "double": {"DOUBLE", "REAL", "DOUBLE PRECISION"},
	"text":   {"CHAR", "VARCHAR", "TINYTEXT", "TEXT", "MEDIUMTEXT", "LONGTEXT"},
	"binary": {"BINARY", "VARBINARY", "TINYBLOB", "BLOB", "MEDIUMBLOB", "LONGBLOB"},
	"date":   {"DATE"}, "datetime": {"DATETIME"}, "timestamp": {"TIMESTAMP"}, "time": {"TIME"},
	"year": {"YEAR"}, "json": {"JSON"}, "bit": {"BIT"}, "enum": {"ENUM"}, "set": {"SET"},
}

// Capabilities of MySQL and MariaDB.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: false, Merge: false, TempTableInTransaction: true, UnitLock: true, PartitionOverwrite: false,
	ChecksInWrite: true, Lock: "GET_LOCK per unit on the unit's pinned connection",
}

// Recipe follows DESIGN §7 for MySQL and MariaDB.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return d.Gen.Recipe(d.hooks(), w)
}

// lockName is per table, not per partition: InnoDB's next-key locks make
// concurrent partition replaces of one table deadlock, so they take turns.
func (d Dialect) LockName(w *plan.Write) string {
	key := "idemc:" + w.Target.Schema + "." + w.Target.Name
	if len(key) > 64 { // GET_LOCK names are limited to 64 characters
		key = key[:48] + fmt.Sprintf("#%x", sqlgen.Hash32(key))
	}
	return key
}

func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin:       beginSQL,
		Commit:      "COMMIT",
		Lock:        d.lock,
		LockTimeout: d.lockWait(),
		Unlock:      d.unlock,
		CreateStage: func(stage, sql string) string {
			// TEMPORARY tables do not commit the transaction.
			return fmt.Sprintf("CREATE TEMPORARY TABLE %s AS\n%s", stage, sql)
		},
		DropStage:         func(stage string) string { return "DROP TEMPORARY TABLE IF EXISTS " + stage },
		Upsert:            d.upsert,
		VerifyThenPublish: d.tableRecipe,
		PublishThenCheck: func(w *plan.Write) []plan.Step {
			steps := d.AutoCommitViewRecipe(w, plan.Step{Purpose: plan.Publish, Comment: "replace the view (DDL commits on its own: a failing check leaves the new view, marked failed)",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)})
			// Held from the replace to the audit row, so that a concurrent
			// runner's replace cannot slip between this view and its checks.
			steps = append(steps[:1], append([]plan.Step{d.lockStep(w, "serialize writers of this view until its checks are recorded")}, steps[1:]...)...)
			return append(steps, d.unlockStep(w))
		},
	}
}

// DefaultLockWait is how long a unit waits for the destination's lock.
const DefaultLockWait = 600 * time.Second

func (d Dialect) lockWait() time.Duration { return cmp.Or(d.LockWait, DefaultLockWait) }

// lock takes the destination's session lock; the engine reads the result
// (1 taken, 0 the wait timed out, NULL an error: not taken).
func (d Dialect) lock(w *plan.Write) string {
	return fmt.Sprintf("SELECT GET_LOCK(%s, %d)", d.String(d.LockName(w)), int(d.lockWait().Seconds()))
}

func (d Dialect) unlock(w *plan.Write) string {
	return fmt.Sprintf("SELECT RELEASE_LOCK(%s)", d.String(d.LockName(w)))
}

func (d Dialect) lockStep(w *plan.Write, comment string) plan.Step {
	return plan.Step{Purpose: plan.Lock, Comment: comment, SQL: d.lock(w),
		Lock: &plan.LockSpec{Key: d.Qualify(w.Target), Timeout: d.lockWait(), Release: d.unlock(w)}}
}

func (d Dialect) unlockStep(w *plan.Write) plan.Step {
	return plan.Step{Purpose: plan.Cleanup, Comment: "release the destination's lock", SQL: d.unlock(w)}
}

// upsert is a null-safe merge without MERGE: update matched keys with <=>,
// then insert the batch rows whose key is not there. (INSERT … ON DUPLICATE
// KEY UPDATE cannot match a key with a NULL part: a unique index treats
// NULLs as distinct.)
func (d Dialect) upsert(w *plan.Write, stage string) []plan.Step {
	dest := d.Qualify(w.Target)
	var steps []plan.Step
	if w.Columns == nil {
		return []plan.Step{{Purpose: plan.Merge, Comment: "update matched keys, insert new ones (null-safe)",
			SQL: "UPDATE " + dest + " AS t JOIN " + stage + " AS s ON /* keys */ SET /* every batch column but the key */;\nINSERT INTO " + dest + " SELECT * FROM " + stage + " /* rows whose key is new */"}}
	}
	if upd := sqlgen.UpdateColumns(w); len(upd) > 0 {
		sets := make([]string, len(upd))
		for i, c := range upd {
			sets[i] = fmt.Sprintf("t.%s = s.%s", d.Quote(c), d.Quote(c))
		}
		steps = append(steps, plan.Step{Purpose: plan.Merge, Comment: "update matched keys (null-safe <=>)",
			SQL: fmt.Sprintf("UPDATE %s AS t\nJOIN %s AS s ON %s\nSET %s", dest, stage, d.KeyMatch(w.UniqueKey, "t", "s"), strings.Join(sets, ", "))})
	}
	steps = append(steps, plan.Step{Purpose: plan.Merge, Comment: "insert the batch's new keys",
		SQL: fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM %s AS s\nWHERE NOT EXISTS (SELECT 1 FROM %s AS t WHERE %s)",
			dest, d.ColumnList(w.Columns, ""), d.ColumnList(w.Columns, "s"), stage, dest, d.KeyMatch(w.UniqueKey, "t", "s"))})
	return steps
}

// tableRecipe builds t__idemc_new, checks it, then swaps it in with one
// atomic RENAME TABLE (verify, then publish).
func (d Dialect) tableRecipe(w *plan.Write) []plan.Step {
	dest := d.Qualify(w.Target)
	newRel := w.Target
	newRel.Name = d.DerivedName(newRel.Name, "__idemc_new")
	oldRel := w.Target
	oldRel.Name = d.DerivedName(oldRel.Name, "__idemc_old")
	build := *w
	build.Target = newRel
	steps := []plan.Step{
		{Purpose: plan.Prepare, Comment: "the table, empty, if it does not exist yet (so the swap below always has two sides)", SQL: d.CreateIfMissing(w)},
		d.AuditStartStep(w),
		// The build aside has one name per table: without the lock, a
		// concurrent runner could drop this build or publish its own
		// (one that failed its checks) in this unit's name.
		d.lockStep(w, "serialize writers of this table across build, check and publish"),
		{Purpose: plan.Stage, Comment: "a leftover build from a dead run", SQL: "DROP TABLE IF EXISTS " + d.Qualify(newRel)},
		{Purpose: plan.Stage, Comment: "a leftover previous table from a run that died after its swap", SQL: "DROP TABLE IF EXISTS " + d.Qualify(oldRel)},
		{Purpose: plan.Stage, Comment: "a previous view (the model was a view) from a run that died after its swap", SQL: "DROP VIEW IF EXISTS " + d.Qualify(oldRel)},
		{Purpose: plan.Stage, Comment: "build the new table aside", SQL: fmt.Sprintf("CREATE TABLE %s AS\n%s", d.Qualify(newRel), w.Select)},
	}
	steps = append(steps, d.CheckSteps(&build)...)
	steps = append(steps,
		plan.Step{Purpose: plan.Publish, Comment: "swap it in atomically", SQL: fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", dest, d.Qualify(oldRel), d.Qualify(newRel), dest)},
		// Before the audit row says succeeded: a run that dies in between
		// leaves its row running, so the next run redoes the unit and drops
		// any leftover on the way.
		plan.Step{Purpose: plan.Cleanup, Comment: "drop the previous table", SQL: "DROP TABLE IF EXISTS " + d.Qualify(oldRel)},
		plan.Step{Purpose: plan.Cleanup, Comment: "or the previous view, when the model was a view", SQL: "DROP VIEW IF EXISTS " + d.Qualify(oldRel)},
		d.AuditFinishStep(w, "SELECT count(*) FROM "+dest),
		d.unlockStep(w),
	)
	return steps
}

// columnType is the column type of a driver type name: the driver gives no
// sizes, so strings become TEXT, decimals DECIMAL(38, 10) and times keep
// microseconds; "UNSIGNED INT" is spelled INT UNSIGNED.
func columnType(t string) string {
	u := strings.ToUpper(t)
	switch u {
	case "VARCHAR", "CHAR", "TEXT", "":
		return "TEXT"
	case "DECIMAL":
		return "DECIMAL(38, 10)"
	case "DATETIME", "TIME":
		return u + "(6)"
	case "TIMESTAMP":
		return "TIMESTAMP(6) NULL"
	}
	if rest, ok := strings.CutPrefix(u, "UNSIGNED "); ok {
		return rest + " UNSIGNED"
	}
	return t
}

// RetypeColumns is one ALTER TABLE … MODIFY COLUMN per change, in one
// statement: InnoDB copies the table and, in strict mode, a value that
// cannot be converted fails it with the table unchanged. It commits on its
// own, so it runs before START TRANSACTION like the other DDL.
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	parts := make([]string, len(changes))
	for i, c := range changes {
		parts[i] = fmt.Sprintf("MODIFY COLUMN %s %s", d.Quote(c.Name), columnType(c.To))
	}
	return []string{fmt.Sprintf("ALTER TABLE %s\n  %s", d.Qualify(w.Target), strings.Join(parts, ",\n  "))}
}

var _ adapters.Dialect = Dialect{}

// CopyTable copies a table aside (CREATE TABLE … LIKE keeps its indexes).
func (d Dialect) CopyTable(aside, dest plan.Relation, rows bool) []string {
	out := []string{"DROP TABLE IF EXISTS " + d.Qualify(aside), fmt.Sprintf("CREATE TABLE %s LIKE %s", d.Qualify(aside), d.Qualify(dest))}
	if rows {
		out = append(out, fmt.Sprintf("INSERT INTO %s SELECT * FROM %s", d.Qualify(aside), d.Qualify(dest)))
	}
	return out
}

// SwapTable is one RENAME TABLE, which MySQL applies atomically.
func (d Dialect) SwapTable(dest, aside, old plan.Relation) string {
	return fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", d.Qualify(dest), d.Qualify(old), d.Qualify(aside), d.Qualify(dest))
}

var _ adapters.AsideBuilder = Dialect{}

// AuditMigrations adds to the audit table of an earlier release the columns
// it lacks and, when its key columns are TEXT (releases before the unit-key
// index), makes them VARCHARs and indexes them: without the index every
// unit's audit UPDATE scanned the table and, in InnoDB, locked every row it
// read until its transaction ended, so concurrent units waited on each other.
func (d Dialect) AuditMigrations(s plan.State, have []plan.Column) []string {
	out := d.Gen.AuditMigrations(s, have)
	for _, c := range have {
		if strings.EqualFold(c.Name, "job_name") && strings.Contains(strings.ToLower(c.Type), "text") {
			out = append(out, "ALTER TABLE "+d.Qualify(s.Audit)+
				" MODIFY run_id VARCHAR(255) NOT NULL, MODIFY job_name VARCHAR(255) NOT NULL,"+
				" MODIFY partition_key VARCHAR(255) NOT NULL, MODIFY status VARCHAR(255) NOT NULL,"+
				" ADD KEY idemc_audit_unit (job_name, partition_key, run_id)")
		}
	}
	return out
}

// SwapKind is the same one RENAME TABLE: MySQL renames views with it too.
func (d Dialect) SwapKind(w *plan.Write, aside, old plan.Relation, fromView bool) []string {
	return []string{d.SwapTable(w.Target, aside, old)}
}

// RenameRelation renames a table or a view (RENAME TABLE takes both).
func (d Dialect) RenameRelation(from, to plan.Relation, view bool) string {
	return fmt.Sprintf("RENAME TABLE %s TO %s", d.Qualify(from), d.Qualify(to))
}

var _ adapters.KindSwapper = Dialect{}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "mysql", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"dsn", "password"},
		Docs:     "DDL before START TRANSACTION; partition replace, checks and audit in one InnoDB transaction under GET_LOCK; tables built aside and swapped with RENAME TABLE",
	})
}

// beginSQL starts the write's transaction.
const beginSQL = "START TRANSACTION"

// Begin is the statement that starts a unit's transaction.
func (d Dialect) Begin() string { return beginSQL }

// SeedLoad builds r__idemc_new from the seed in multi-row INSERTs with
// values bound in their kinds, then swaps it in with one atomic RENAME
// TABLE (MySQL has no transactional DDL). The engine holds the table's
// lock around it, as a unit writing r does.
func (d Dialect) SeedLoad(r plan.Relation, t *seed.Table) adapters.SeedLoad {
	newRel, oldRel := r, r
	newRel.Name = d.DerivedName(r.Name, "__idemc_new")
	oldRel.Name = d.DerivedName(r.Name, "__idemc_old")
	dest, aside, old := d.Qualify(r), d.Qualify(newRel), d.Qualify(oldRel)
	return adapters.SeedLoad{
		Aside: newRel,
		Prepare: []string{
			"DROP TABLE IF EXISTS " + aside,
			fmt.Sprintf("CREATE TABLE %s (%s)", aside, sqlgen.SeedColumnDefs(d, t)),
		},
		Batches: d.BoundSeedBatches(newRel, t, sqlgen.SeedBatchRows),
		Publish: []string{
			fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s LIKE %s", dest, aside),
			"DROP TABLE IF EXISTS " + old,
			fmt.Sprintf("RENAME TABLE %s TO %s, %s TO %s", dest, old, aside, dest),
			"DROP TABLE IF EXISTS " + old,
		},
	}
}

var _ adapters.SeedLoader = Dialect{}
