// Package dialect is Spark's (Delta Lake's) SQL: pure, no client, so that
// the compiler and the goldens link none (the engine is adapters/spark).
package dialect

import (
	"fmt"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is Spark SQL with Delta Lake.
type Dialect struct{ sqlgen.Gen }

// NewDialect returns the Spark / Databricks dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		// percentile() is exact and older than Spark 3.4's median().
		Median:     func(x string) string { return "percentile(" + x + ", 0.5)" },
		SeedTypes:  sqlgen.SeedTypes{seed.Text: "STRING"},
		IdentLimit: adapters.IdentLimit{Name: 255, Column: 255}, // Unity Catalog object names
		Engine:     "spark", QuoteOpen: '`', QuoteEnd: '`', TextType: "STRING",
		NullSafeEq:   func(a, b string) string { return a + " <=> " + b },
		Text:         "STRING",
		TableOptions: "USING DELTA", // the state tables are Delta tables, whatever the default format
		// Spark refuses to drop a schema that holds tables without
		// CASCADE: verify's scratch schemas (and the test suite's) stayed.
		DropSchemaCascade: true,
		// Delta checks a MERGE's conflicts per partition: by key, claims of
		// one unit conflict (the loser retries and finds the row), others'
		// do not. By run too, so that a release, a takeover and a run's
		// end delete by partition values only: Delta then drops files
		// without scanning them (live: a release 584 -> 386 ms).
		ClaimTableOptions: "USING DELTA PARTITIONED BY (lock_key, run_id)",
		// The claim MERGE only inserts, and its metrics row says whether
		// it did: the holder read is skipped when it did (~180 ms a unit
		// live).
		ClaimCounts: true,
		// A unit's end is a second audit row, not an UPDATE of its running
		// row: Delta's blind INSERTs never conflict, while every UPDATE of
		// the shared audit table rewrites a file and conflicts with the
		// model's other units (the largest single cost measured live).
		AuditAppendOnly: true,
		// Where a target without `schema` writes: the state's listing
		// finds its tables there (current_schema() since Spark 3.4).
		CurrentSchema: "current_schema()",
		// Spark reads '0x…' as no number (ANSI mode fails the cast):
		// verify's fingerprints convert the hex digits with conv.
		HexToInt: func(h string) string { return "CAST(conv(" + h + ", 16, 10) AS BIGINT)" },
		// Spark reads '' as two adjacent literals; escape with a backslash.
		StringLit: func(s string) string {
			return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`).Replace(s) + "'"
		},
		TypeFamily: sqlgen.Families(typeFamilies, true),
		TypeFits:   sqlgen.DecimalFits,
	}}}
}

// typeFamilies are Spark's type names by family. A query's schema and a
// table's (read the same way) give Spark Connect's names in upper case
// (INTEGER, LONG, STRING, DECIMAL(p, s)); SQL's spellings are listed too.
// A DECIMAL destination must hold the batch's digits and scale; VOID (a
// bare NULL) is unknown.
var typeFamilies = map[string][]string{
	"tinyint": {"TINYINT", "BYTE"}, "smallint": {"SMALLINT", "SHORT"}, "int": {"INT", "INTEGER"},
	"bigint": {"BIGINT", "LONG"}, "float": {"FLOAT", "REAL"}, "double": {"DOUBLE"},
	"decimal": {"DECIMAL", "DEC", "NUMERIC"}, "string": {"STRING", "VARCHAR", "CHAR"},
	"timestamp_ntz": {"TIMESTAMP_NTZ", "TIMESTAMPNTZ"}, "": {"VOID", "NULL"},
}

// RetypeColumns rewrites the Delta table from itself with the changed
// columns cast (Delta's ALTER COLUMN cannot change a type): one Delta
// commit, so a value that cannot be cast leaves the table as it was, and
// its history keeps the old version. The runner retypes the unit's copy
// (CopyTable), whose column mapping it keeps for the drops that follow.
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA %s AS\n%s", d.Qualify(w.Target), asideProps, d.RewriteSelect(w, cols, changes))}
}

// Capabilities of Spark / Databricks on Delta.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: false, Merge: true, PartitionOverwrite: true,
	ChecksInWrite: false, Lock: "a claimed row of idemc_locks per unit (waits while a live run holds it, takes over a dead run's); idempotent txnAppId/txnVersion per unit",
	ReplaceDefinition: true, UnitClaim: true,
}

// Rollback: Spark has no transaction to end; the runner never opens one
// (the recipes have no BEGIN), and the Session treats "" as nothing to do.
func (d Dialect) Rollback() string { return "" }

// Begin: Spark has no transaction to open.
func (d Dialect) Begin() string { return "" }

// RelationsQuery lists tables and views of the current catalog.
func (d Dialect) RelationsQuery() string {
	return "SELECT table_schema, table_name FROM information_schema.tables"
}

// StageRelation is a unit's staging Delta table: beside the destination,
// named by partition and run so that units and runs never share one.
func StageRelation(w *plan.Write) plan.Relation {
	r := w.Target
	r.Name = sqlgen.StageName(w)
	if w.Window != nil {
		r.Name += "_" + strings.NewReplacer("-", "", "T", "").Replace(w.Window.Key)
	}
	run := "<run_id>"
	if w.Audit != nil {
		run = w.Audit.RunID
	}
	r.Name += fmt.Sprintf("_%08x", sqlgen.Hash32(run))
	return r
}

// StateDDL is sqlgen's state tables, the audit table partitioned by unit:
// open-source Delta checks conflicts only at partition level (and allows
// only Serializable isolation), so in one unpartitioned audit table every
// unit's UPDATE of its row conflicted with every other unit's INSERT.
// Partitioned by job, a model's rows are apart from the others' (not by
// partition key too: Spark stores an empty partition value as NULL, which
// the NOT NULL column refuses); a model's units still conflict among
// themselves, and the runner retries those statements alone.
func (d Dialect) StateDDL(s plan.State) []string {
	out := d.Gen.StateDDL(s)
	audit := "CREATE TABLE IF NOT EXISTS " + d.Qualify(s.Audit) + " ("
	for i, q := range out {
		if strings.HasPrefix(q, audit) && strings.HasSuffix(q, ") USING DELTA") {
			out[i] = q + " PARTITIONED BY (job_name)"
		}
	}
	return out
}

// StageRun reports a stage of dest (StageRelation: the destination's
// name, __idemc_stage, …, the run's hash) or a seed load's table
// (RunSeedLoad: the seed's name, __idemc_new_, the run's hash), and the
// run hash it ends with.
func (d Dialect) StageRun(dest, name string) (string, bool) {
	if tag, ok := sqlgen.SeedLoadRun(dest, name); ok {
		return tag, true
	}
	return sqlgen.StageRun(dest, name)
}

// RunTag is the hash a run's stages end with.
func (d Dialect) RunTag(runID string) string { return sqlgen.RunTag(runID) }

var _ adapters.StageTables = Dialect{}

// TxnAppID is the Delta idempotent-write application id of a unit's
// publish (with TxnVersion): Delta skips a write whose version is not
// above the last one it committed for the id. Readable, never a hash that
// two units could share: the run, the table and the partition, so that a
// resubmitted statement of an attempt is skipped and a new attempt is
// not. An append is keyed by the table, the partition and the unit's
// inputs instead, without the run: a redo after a crash between the
// publish and the audit row (same inputs) is skipped instead of appending
// the batch twice; new inputs append.
func TxnAppID(w *plan.Write) string {
	run, part := "<run_id>", ""
	if w.Audit != nil {
		run = w.Audit.RunID
	}
	if w.Window != nil {
		part = ":" + w.Window.Key
	}
	table := w.Target.Schema + "." + w.Target.Name
	if w.Target.Database != "" {
		table = w.Target.Database + "." + table
	}
	if appendByInputs(w) {
		return "idemc:" + table + part + ":inputs=" + w.Audit.Inputs
	}
	return "idemc:" + run + ":" + table + part
}

// TxnVersion is the publish's txnVersion: the attempt (a later attempt of
// the same run's unit writes again), 1 for an append keyed by its inputs.
func TxnVersion(w *plan.Write) int64 {
	if appendByInputs(w) {
		return 1
	}
	return attempt(w)
}

func appendByInputs(w *plan.Write) bool {
	return w.Strategy == "append" && !w.FullRefresh && w.Audit != nil && w.Audit.Inputs != ""
}

// Recipe follows DESIGN §7 for Spark / Databricks: verify, then publish
// (sqlgen's shape): the batch is staged in a Delta table and checked
// there, then published in one Delta commit with an idempotent-write id.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return d.Gen.Recipe(sqlgen.Hooks{
		View: func(w *plan.Write) []plan.Step {
			// WITH SCHEMA EVOLUTION (Spark 4.0, Databricks): the view
			// follows its upstreams' columns and types, as its query
			// would. Spark's default binds the types it was created
			// with and casts to them: after an upstream column changed
			// type, the view failed on every read (CAST_INVALID_INPUT).
			return []plan.Step{{Purpose: plan.Publish, Comment: "replace the view (no transaction: a failing check leaves the new view, marked failed)",
				SQL: fmt.Sprintf("CREATE OR REPLACE VIEW %s WITH SCHEMA EVOLUTION AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Prepare: func(w *plan.Write) plan.Step {
			return plan.Step{Purpose: plan.Prepare, Comment: "the destination, an empty Delta table, if it does not exist yet",
				SQL: fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s USING DELTA%s AS\nSELECT * FROM (\n%s\n) AS idemc_shape LIMIT 0", d.Qualify(w.Target), tableProps(w.Columns), w.Select)}
		},
		Staged: &sqlgen.Staged{Relation: StageRelation, Noun: "batch",
			Create: func(w *plan.Write, stage, batch string) plan.Step {
				return plan.Step{Purpose: plan.Stage, Comment: "materialize the batch in a staging Delta table: what is checked is what is published",
					SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA%s AS\n%s", stage, tableProps(w.Columns), batch)}
			},
			Publish: d.publish},
	}, w)
}

// publish writes the checked stage in one Delta commit: a table's
// definition and rows, a partition window (REPLACE WHERE) or the batch by
// key; writes to an existing table carry the unit's idempotent-write id,
// set before and reset after.
func (d Dialect) publish(w *plan.Write, stage string) []plan.Step {
	dest := d.Qualify(w.Target)
	if w.Materialized == plan.Table {
		return []plan.Step{{Purpose: plan.Publish, Comment: "publish atomically: one Delta commit replaces the table's rows and schema",
			SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA%s AS\nSELECT * FROM %s", dest, tableProps(w.Columns), stage)}}
	}
	steps := []plan.Step{
		{Purpose: plan.Publish, Comment: "make the publish idempotent: Delta skips a commit it has already made for this unit and attempt",
			// SET takes the rest of the line verbatim (quotes would be kept).
			SQL: "SET spark.databricks.delta.write.txnAppId = " + strings.NewReplacer("\n", " ", "\r", " ").Replace(TxnAppID(w))},
		{Purpose: plan.Publish, Comment: "", SQL: fmt.Sprintf("SET spark.databricks.delta.write.txnVersion = %d", TxnVersion(w))},
	}
	partition := w.Window != nil && w.PartitionBy != "" && w.Strategy != "merge"
	switch {
	case partition && w.Strategy == "append":
		steps = append(steps, plan.Step{Purpose: plan.Insert, Comment: "append the batch (allow_append: a rerun adds the rows again; a resubmission does not)", SQL: d.namedInsert("INSERT INTO", dest, w, stage)})
	case partition:
		comment := "replace the partition window " + w.Window.Key + " in one Delta commit"
		if w.Strategy == "insert_overwrite" {
			comment += " (Delta's native partition overwrite)"
		}
		// REPLACE WHERE takes no column list (Spark 4.0's grammar: neither
		// (cols) nor BY NAME), so the SELECT lists the destination's
		// columns in its order.
		steps = append(steps, plan.Step{Purpose: plan.Insert, Comment: comment, SQL: fmt.Sprintf("INSERT INTO %s\nREPLACE WHERE %s\nSELECT %s FROM %s", dest, d.Window(w, ""), d.selectList(w), stage)})
	default:
		steps = append(steps, d.keyWrite(w, stage)...)
	}
	steps = append(steps,
		plan.Step{Purpose: plan.Cleanup, Comment: "forget the idempotent-write id", SQL: "RESET spark.databricks.delta.write.txnAppId"},
		plan.Step{Purpose: plan.Cleanup, Comment: "", SQL: "RESET spark.databricks.delta.write.txnVersion"})
	if !partition && w.Watermark != nil {
		steps = append(steps, d.markStep(w, stage))
	}
	return steps
}

// insertColumns are the destination's columns a publish writes: the
// batch's that the destination has, in the destination's order when the
// runner read it (nil: every column of the batch, in its order).
func insertColumns(w *plan.Write) []string {
	if w.TargetColumns == nil {
		return w.Columns
	}
	if w.Columns == nil {
		return w.TargetColumns
	}
	batch := map[string]bool{}
	for _, c := range w.Columns {
		batch[strings.ToLower(c)] = true
	}
	var out []string
	for _, c := range w.TargetColumns {
		if batch[strings.ToLower(c)] {
			out = append(out, c)
		}
	}
	return out
}

// namedInsert inserts the stage's rows naming the columns: Spark matches
// an INSERT's columns by position unless they are named (INSERT INTO t
// (c1, c2) …, also INSERT OVERWRITE), so a reordered model, or a column
// added that is not last, would land in the wrong column.
func (d Dialect) namedInsert(verb, dest string, w *plan.Write, stage string) string {
	cols := insertColumns(w)
	if cols == nil {
		return fmt.Sprintf("%s %s\nSELECT * FROM %s", verb, dest, stage)
	}
	list := d.ColumnList(cols, "")
	return fmt.Sprintf("%s %s (%s)\nSELECT %s FROM %s", verb, dest, list, list, stage)
}

// selectList is what a positional insert selects from the stage: every
// destination column in the destination's order, NULL for one the batch
// lacks (on_schema_change ignore or append_new_columns); the batch's
// columns when the destination's are unknown.
func (d Dialect) selectList(w *plan.Write) string {
	if w.TargetColumns == nil {
		if w.Columns == nil {
			return "*"
		}
		return d.ColumnList(w.Columns, "")
	}
	have := map[string]bool{}
	for _, c := range insertColumns(w) {
		have[strings.ToLower(c)] = true
	}
	parts := make([]string, len(w.TargetColumns))
	for i, c := range w.TargetColumns {
		parts[i] = d.Quote(c)
		if !have[strings.ToLower(c)] {
			parts[i] = "NULL AS " + d.Quote(c)
		}
	}
	return strings.Join(parts, ", ")
}

func attempt(w *plan.Write) int64 {
	if w.Audit != nil && w.Audit.Attempt > 0 {
		return w.Audit.Attempt
	}
	return 1
}

// keyWrite publishes a staged batch by key in one Delta commit.
func (d Dialect) keyWrite(w *plan.Write, stage string) []plan.Step {
	dest := d.Qualify(w.Target)
	switch {
	case w.FullRefresh && w.Recreate:
		cols := "*"
		if w.Columns != nil {
			cols = d.ColumnList(w.Columns, "")
		}
		return []plan.Step{{Purpose: plan.Insert, Comment: "full refresh, column types changed: replace the table's definition and rows in one Delta commit",
			SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA%s AS\nSELECT %s FROM %s", dest, tableProps(w.Columns), cols, stage)}}
	case w.FullRefresh:
		return []plan.Step{{Purpose: plan.Insert, Comment: "full refresh: replace every row in one Delta commit",
			SQL: d.namedInsert("INSERT OVERWRITE TABLE", dest, w, stage)}}
	case w.Strategy == "append":
		return []plan.Step{{Purpose: plan.Insert, Comment: "append the batch (allow_append: a rerun adds the rows again; a resubmission does not)",
			SQL: d.namedInsert("INSERT INTO", dest, w, stage)}}
	case w.Strategy == "merge":
		return []plan.Step{{Purpose: plan.Merge, Comment: "update matched keys, insert new ones (null-safe <=>), in one Delta commit", SQL: d.Merge(w, stage)}}
	}
	// delete_insert by key, in one commit: a MERGE whose source is the batch
	// twice, once marked delete (matching every destination row of a batch
	// key: those are deleted) and once marked insert (never matching:
	// inserted). The batch's keys are unique (validated), so no destination
	// row matches two source rows.
	on := d.KeyMatch(w.UniqueKey, "t", "s") + " AND s.idemc_op = 'delete'"
	ins := "INSERT *"
	if cols := insertColumns(w); cols != nil {
		ins = fmt.Sprintf("INSERT (%s) VALUES (%s)", d.ColumnList(cols, ""), d.ColumnList(cols, "s"))
	}
	return []plan.Step{{Purpose: plan.Merge, Comment: "delete the batch's keys and insert the batch in one Delta commit (null-safe)",
		SQL: fmt.Sprintf("MERGE INTO %s AS t\nUSING (\n  SELECT *, 'delete' AS idemc_op FROM %s\n  UNION ALL\n  SELECT *, 'insert' AS idemc_op FROM %s\n) AS s\nON %s\nWHEN MATCHED THEN DELETE\nWHEN NOT MATCHED AND s.idemc_op = 'insert' THEN %s",
			dest, stage, stage, on, ins)}}
}

// markStep records the batch's high-water mark in one Delta commit.
func (d Dialect) markStep(w *plan.Write, stage string) plan.Step {
	col := d.Quote(w.Watermark.Column)
	run := "<run_id>"
	if w.Audit != nil {
		run = w.Audit.RunID
	}
	ts := "NULL"
	if w.Audit != nil && !w.Audit.Started.IsZero() {
		ts = d.Timestamp(w.Audit.Started)
	}
	return plan.Step{Purpose: plan.StateStep, Comment: "record the batch's maximum " + w.Watermark.Column + " (an empty batch keeps the old mark)",
		SQL: fmt.Sprintf("MERGE INTO %s AS t\nUSING (SELECT %s AS job_name, CAST(max(%s) AS STRING) AS high_water FROM %s HAVING max(%s) IS NOT NULL) AS s\nON t.job_name = s.job_name\nWHEN MATCHED THEN UPDATE SET high_water = s.high_water, run_id = %s, updated_at = %s\nWHEN NOT MATCHED THEN INSERT (job_name, high_water, run_id, updated_at) VALUES (s.job_name, s.high_water, %s, %s)",
			d.Qualify(w.State.Marks), d.String(w.Model), col, stage, col, d.String(run), ts, d.String(run), ts)}
}

// SeedLoad fills a staging Delta table (one name per load: concurrent
// loads never share it) by multi-row INSERTs of typed literals, then
// publishes it with one CREATE OR REPLACE TABLE (a single Delta commit).
func (d Dialect) SeedLoad(r plan.Relation, t *seed.Table) adapters.SeedLoad {
	return d.RunSeedLoad(r, t, "")
}

// RunSeedLoad is SeedLoad by the run whose tag is tag (RunTag; ""
// random): its staging table is r__idemc_new_<tag>, which the next run
// drops if the load died with its run (StageRun).
func (d Dialect) RunSeedLoad(r plan.Relation, t *seed.Table, tag string) adapters.SeedLoad {
	newRel, prep := d.SeedAsideTagged(r, tag)
	dest, aside := d.Qualify(r), d.Qualify(newRel)
	props := tableProps(seedColumns(t))
	return adapters.SeedLoad{
		Aside:   newRel,
		Prepare: append(prep, fmt.Sprintf("CREATE OR REPLACE TABLE %s (%s) USING DELTA%s", aside, sqlgen.SeedColumnDefs(d, t), props)),
		Batches: d.LiteralSeedBatches(newRel, t, sqlgen.SeedBatchRows),
		Publish: []string{
			fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA%s AS SELECT * FROM %s", dest, props, aside),
			"DROP TABLE IF EXISTS " + aside,
		},
	}
}

var _ adapters.SeedLoader = Dialect{}

var _ adapters.Dialect = Dialect{}

// asideProps enables column mapping on the copies a column change works
// on: Delta drops a column only from a table with column mapping (mode
// name; docs.databricks.com/delta/column-mapping, error class
// DELTA_UNSUPPORTED_DROP_COLUMN).
const asideProps = mappingProps

// CopyTable copies the destination aside for a unit that changes its
// columns: a new Delta table with its rows (or none), one commit.
func (d Dialect) CopyTable(aside, dest plan.Relation, rows bool) []string {
	q := fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA %s AS\nSELECT * FROM %s", d.Qualify(aside), asideProps, d.Qualify(dest))
	if !rows {
		q += " LIMIT 0"
	}
	return []string{q}
}

// SwapTable publishes the checked copy: CREATE OR REPLACE TABLE … AS is one
// Delta commit that replaces the destination's schema and rows together
// (its history keeps the previous version). The copy is dropped after; old
// is not used. The columns are not known here, so the destination gets
// column mapping like its copy (tableProps).
func (d Dialect) SwapTable(dest, aside, old plan.Relation) string {
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s USING DELTA%s AS\nSELECT * FROM %s", d.Qualify(dest), tableProps(nil), d.Qualify(aside))
}

var _ adapters.AsideBuilder = Dialect{}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "spark", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"dsn", "host", "port", "token", "http_path", "catalog"},
		Docs:     "Spark Connect on Delta: verify, then publish — the batch is staged in a Delta table and checked there, then published in one Delta commit (INSERT INTO … REPLACE WHERE, MERGE, CREATE OR REPLACE TABLE … AS) with an idempotent txnAppId",
	})
}
