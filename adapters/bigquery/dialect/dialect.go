// Package dialect is BigQuery's SQL: pure, no client, so that the compiler
// and the goldens link none (the engine is adapters/bigquery).
package dialect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/plan"
)

// Dialect is BigQuery's GoogleSQL.
type Dialect struct{ sqlgen.Gen }

// NewDialect returns BigQuery's dialect.
func NewDialect() Dialect {
	return Dialect{sqlgen.Gen{C: Capabilities, S: sqlgen.Spelling{
		SeedTypes:  sqlgen.SeedTypes{seed.BigInt: "INT64", seed.Double: "FLOAT64", seed.Boolean: "BOOL", seed.Text: "STRING"},
		IdentLimit: adapters.IdentLimit{Name: 1024, Column: 300, Bytes: true, ColumnChars: true}, // tables 1024 UTF-8 bytes, columns 300 characters
		Engine:     "bigquery", QuoteOpen: '`', QuoteEnd: '`', TextType: "STRING",
		// MD5 returns BYTES, TO_HEX makes it lowercase hex; CAST(… AS
		// STRING) of a DATE is YYYY-MM-DD.
		Key:        sqlgen.KeyFuncs{Length: "LENGTH", Concat: "CONCAT", Hash: "TO_HEX(MD5(%s))"},
		QuoteIdent: quoteIdent,
		StringLit:  stringLit,
		NullSafeEq: func(a, b string) string {
			return "(" + a + " = " + b + " OR (" + a + " IS NULL AND " + b + " IS NULL))"
		},
		BigInt: "INT64", Text: "STRING",
		TypeFamily: sqlgen.Families(typeFamilies, true),
		ColumnType: columnType,
	}}}
}

// typeFamilies are BigQuery's type names by family. A dry run and a
// table's metadata both give the API's names (INTEGER, FLOAT, BOOLEAN,
// RECORD); GoogleSQL's (INT64, FLOAT64, BOOL, STRUCT) are listed too.
// NUMERIC and BIGNUMERIC differ; parameters (STRING(10)) are not compared.
var typeFamilies = map[string][]string{
	"int64": {"INT64", "INTEGER", "INT", "BIGINT", "SMALLINT", "TINYINT", "BYTEINT"}, "float64": {"FLOAT64", "FLOAT"},
	"numeric": {"NUMERIC", "DECIMAL"}, "bignumeric": {"BIGNUMERIC", "BIGDECIMAL"},
	"string": {"STRING"}, "bool": {"BOOL", "BOOLEAN"}, "struct": {"STRUCT", "RECORD"},
}

// RetypeColumns rewrites the table from itself with the changed columns
// cast (ALTER COLUMN … SET DATA TYPE only widens), partitioned as idemc
// creates it. CREATE OR REPLACE TABLE is one atomic job: a value that
// cannot be cast fails it and leaves the table as it was.
func (d Dialect) RetypeColumns(w *plan.Write, cols []plan.Column, changes []plan.ColumnChange) []string {
	part := ""
	if w.Window != nil && w.PartitionBy != "" {
		part = "\nPARTITION BY " + d.PartitionExpr(w.PartitionBy, w.Window.Granularity)
	}
	return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s%s AS\n%s", d.Qualify(w.Target), part, d.RewriteSelect(w, cols, changes))}
}

// Capabilities of BigQuery.
var Capabilities = adapters.Capabilities{
	TransactionalDDL: false, Merge: true, Script: true, PartitionOverwrite: true,
	ChecksInWrite: true, Lock: "none: conflicting script transactions abort and are retried; deterministic job ids per unit and attempt",
	TableInPlace: true,
}

// quoteIdent quotes with backticks; BigQuery escapes ` and \ with a backslash.
func quoteIdent(ident string) string {
	return "`" + strings.NewReplacer(`\`, `\\`, "`", "\\`").Replace(ident) + "`"
}

// stringLit renders a string literal: BigQuery reads ” as two literals and
// forbids raw newlines, so everything is backslash-escaped.
func stringLit(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\r", `\r`).Replace(s) + "'"
}

// Statements the engine's Session recognizes.
const (
	BeginSQL    = "BEGIN TRANSACTION"
	CommitSQL   = "COMMIT TRANSACTION"
	RollbackSQL = "ROLLBACK TRANSACTION"
)

// Rollback ends a failed transaction (the Session discards its buffer).
func (d Dialect) Rollback() string { return RollbackSQL }

// Begin opens the buffered script transaction.
func (d Dialect) Begin() string { return BeginSQL }

// RelationsQuery lists tables and views. Unqualified, INFORMATION_SCHEMA is
// the default dataset's; the engine's Session reads it region-wide
// (`region-<location>`.INFORMATION_SCHEMA.TABLES) when the target has a
// location.
func (d Dialect) RelationsQuery() string {
	return "SELECT table_schema, table_name FROM INFORMATION_SCHEMA.TABLES"
}

// sqlTypes are the API's type names (a dry run's, a table's metadata's,
// a load job's schema) that GoogleSQL spells otherwise; the other names
// are the same in both.
var sqlTypes = map[string]string{"INTEGER": "INT64", "FLOAT": "FLOAT64", "BOOLEAN": "BOOL"}

// columnType spells API type names (INTEGER, FLOAT, BOOLEAN) as GoogleSQL
// types, for ADD COLUMN and CAST.
func columnType(t string) string {
	u := strings.ToUpper(t)
	if s, ok := sqlTypes[u]; ok {
		return s
	}
	if u == "" {
		return "STRING"
	}
	return u
}

// APIType spells a GoogleSQL type as the API names it (INT64 → INTEGER),
// for a load job's schema.
func APIType(sqlType string) string {
	for api, s := range sqlTypes {
		if s == sqlType {
			return api
		}
	}
	return sqlType
}

// Labels are the job labels of a unit: the run id, the model, the
// partition and the attempt, as BigQuery label values (lowercase letters,
// digits, _ and -, at most 63 characters).
func Labels(w *plan.Write) map[string]string {
	run, attempt := "<run_id>", int64(0)
	if w.Audit != nil {
		run, attempt = w.Audit.RunID, w.Audit.Attempt
	}
	l := map[string]string{"idemc_run": LabelValue(run), "idemc_model": LabelValue(w.Model), "idemc_attempt": strconv.FormatInt(attempt, 10)}
	if w.Window != nil {
		l["idemc_partition"] = LabelValue(w.Window.Key)
	}
	return l
}

// LabelValue folds any text into a valid label value.
func LabelValue(s string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteRune(c)
		} else {
			b.WriteByte('_')
		}
	}
	out := b.String()
	if len(out) > 63 {
		out = out[:54] + fmt.Sprintf("_%08x", Hash32(out))
	}
	return out
}

// Hash32 is sqlgen.Hash32, which the engine's job ids use too.
func Hash32(s string) uint32 { return sqlgen.Hash32(s) }

// withJobs gives a recipe's steps their job specs: every step carries the
// unit's labels (the Session puts them on each job and derives the unit's
// write job ids from them), and the steps between BEGIN and COMMIT are
// deferred (buffered into the script, ASSERTs judged at COMMIT).
func withJobs(w *plan.Write, steps []plan.Step) []plan.Step {
	labels := Labels(w)
	inScript := false
	for i := range steps {
		s := &steps[i]
		if s.Job == nil {
			s.Job = &plan.JobSpec{}
		}
		s.Job.Labels = labels
		switch s.Purpose {
		case plan.Begin:
			inScript = true
		case plan.Commit:
			inScript = false
			s.Job.Kind = "script"
		default:
			s.Deferred = inScript
		}
	}
	return steps
}

// PartitionExpr is the PARTITION BY expression of a destination
// partitioned by col at a granularity (day/month/year columns are DATEs,
// hour columns TIMESTAMPs, as the window literals are).
func (d Dialect) PartitionExpr(col, granularity string) string {
	q := d.Quote(col)
	switch granularity {
	case "hour":
		return "TIMESTAMP_TRUNC(" + q + ", HOUR)"
	case "month":
		return "DATE_TRUNC(" + q + ", MONTH)"
	case "year":
		return "DATE_TRUNC(" + q + ", YEAR)"
	}
	return q
}

// Decorator is the partition decorator of a window: $YYYYMMDD, $YYYYMMDDHH,
// $YYYYMM or $YYYY.
func Decorator(win *plan.Window) string {
	t := win.Start.UTC()
	switch win.Granularity {
	case "hour":
		return "$" + t.Format("2006010215")
	case "month":
		return "$" + t.Format("200601")
	case "year":
		return "$" + t.Format("2006")
	}
	return "$" + t.Format("20060102")
}

// createIfMissing creates the destination (partitioned like its windows)
// with the batch's columns and no rows.
func (d Dialect) createIfMissing(w *plan.Write) string {
	part := ""
	if w.Window != nil && w.PartitionBy != "" {
		part = "\nPARTITION BY " + d.PartitionExpr(w.PartitionBy, w.Window.Granularity)
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s AS\nSELECT * FROM (\n%s\n) AS idemc_shape LIMIT 0", d.Qualify(w.Target), part, w.Select)
}

// AssertMessage is the message of a check's ASSERT, by which the Session
// tells which check stopped a failed script.
func AssertMessage(c *plan.Check) string { return "idemc check " + c.Name }

// Assert renders a check as an ASSERT of the script: it fails (and rolls
// the script back) when the check's query returns a row.
// The step is deferred (withJobs): the runner records the check as passed
// when the script commits, as failed when the script stops on its ASSERT.
// Declared checks keep the check purpose; implicit batch checks are
// validate steps.
func (d Dialect) Assert(c *plan.Check, w *plan.Write, stage string) plan.Step {
	msg := AssertMessage(c)
	p := plan.CheckStep
	if c.Kind == plan.CheckBatchKeys || c.Kind == plan.CheckPartitionNull {
		p = plan.Validate
	}
	return plan.Step{Purpose: p, Comment: fmt.Sprintf("check %s (%s) as an ASSERT inside the script: a failure rolls it back", c.Name, c.Severity), Check: c,
		SQL: fmt.Sprintf("ASSERT NOT EXISTS (\n%s\n) AS %s", d.checkQuery(c, w, stage), d.String(msg))}
}

// Recipe follows DESIGN §7 for BigQuery.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	switch {
	case w.Materialized == plan.View:
		// Plain check queries, not ASSERTs: there is no script to roll back.
		return withJobs(w, d.AutoCommitViewRecipe(w, plan.Step{Purpose: plan.Publish,
			Comment: "replace the view (DDL: not allowed inside a transaction; a failing check leaves the new view, marked failed)",
			SQL:     fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}))
	case w.Materialized == plan.Incremental && w.Strategy == "insert_overwrite" && w.Window != nil && w.PartitionBy != "" && !w.FullRefresh:
		return withJobs(w, d.overwriteRecipe(w))
	}
	return withJobs(w, d.scriptRecipe(w))
}

// scriptRecipe is one script transaction: BEGIN TRANSACTION; write; ASSERT
// checks; state; audit; COMMIT TRANSACTION. A key write (merge,
// delete_insert by key, append, full refresh) first builds its batch in a
// staging table outside the script, where the duplicate-key check is an
// ordinary query. Warn checks run after COMMIT on the committed region.
func (d Dialect) scriptRecipe(w *plan.Write) []plan.Step {
	dest := d.Qualify(w.Target)
	var steps []plan.Step
	add := func(p plan.Purpose, comment, sql string) {
		steps = append(steps, plan.Step{Purpose: p, Comment: comment, SQL: sql})
	}
	begin := func() {
		add(plan.Begin, "the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job", BeginSQL)
	}
	add(plan.Prepare, "the destination, empty, if it does not exist yet (DDL, outside the script)", d.createIfMissing(w))
	steps = append(steps, d.AuditStartStep(w))
	partition := w.Window != nil && w.PartitionBy != "" && w.Strategy != "merge"
	staged := w.Materialized == plan.Incremental && !partition
	stage := ""
	count := ""
	switch {
	case w.Materialized == plan.Table:
		begin()
		add(plan.Delete, "rebuild: empty the table inside the transaction (keeps its options and grants)", "TRUNCATE TABLE "+dest)
		add(plan.Insert, "rebuild the rows", d.insertByName(w))
		count = "SELECT count(*) FROM " + dest
	case partition:
		begin()
		steps = append(steps, d.PartitionSteps(w)...)
		steps = append(steps, d.Assert(sqlgen.PartitionNullCheck(w.PartitionBy), w, ""))
		count = fmt.Sprintf("SELECT count(*) FROM %s AS t WHERE %s", dest, d.Window(w, "t"))
	default:
		// A real table, not a TEMP TABLE of the script: the warn checks
		// after COMMIT still need the batch's keys.
		stage = d.Qualify(StageRelation(w))
		steps = append(steps, d.stageStep("the batch, in a staging table (expires in a day if a run dies)", stage, w))
		if len(w.UniqueKey) > 0 {
			bk := sqlgen.BatchKeyCheck(w.UniqueKey)
			steps = append(steps, plan.Step{Purpose: plan.Validate, Comment: "refuse a batch that repeats a key before writing anything", SQL: d.checkQuery(bk, w, stage), Check: bk})
		}
		begin()
		steps = append(steps, d.WriteSteps(d.writeHooks(), w, stage)...)
		count = "SELECT count(*) FROM " + stage
	}
	var warn []plan.Step
	for _, c := range w.Checks {
		if c.Severity == "warn" {
			warn = append(warn, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (warn), on the committed region", c.Name), SQL: d.checkQuery(c, w, stage), Check: c})
			continue
		}
		steps = append(steps, d.Assert(c, w, stage))
	}
	if staged {
		steps = append(steps, d.StateSteps(w, stage)...)
	}
	fin := d.AuditFinishStep(w, "")
	fin.Comment = "record success, in the script transaction"
	steps = append(steps, fin)
	add(plan.StateStep, "the audit row's row_count, counted inside the script transaction", d.auditCount(w, count))
	add(plan.Commit, "submit the buffered script; BigQuery commits it whole or not at all", CommitSQL)
	steps = append(steps, warn...)
	if stage != "" {
		add(plan.Cleanup, "drop the staging table", "DROP TABLE IF EXISTS "+stage)
	}
	return steps
}

// insertByName inserts the model's rows by column name when the columns
// are known: the runner first syncs the table's columns to the model's
// (TableInPlace), which appends new ones at the end.
func (d Dialect) insertByName(w *plan.Write) string {
	dest := d.Qualify(w.Target)
	if w.Columns == nil {
		return fmt.Sprintf("INSERT INTO %s\n%s", dest, w.Select)
	}
	cols := d.ColumnList(w.Columns, "")
	return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM (\n%s\n) AS idemc_batch", dest, cols, cols, w.Select)
}

// checkQuery is the check's query with the batch read from the unit's
// staging table (stage; "" when the unit has none).
func (d Dialect) checkQuery(c *plan.Check, w *plan.Write, stage string) string {
	return d.CheckQueryOn(c, w, false, stage)
}

// auditCount sets the unit's row_count from a count evaluated in the script.
func (d Dialect) auditCount(w *plan.Write, count string) string {
	r := auditKey(w)
	return fmt.Sprintf("UPDATE %s SET row_count = (%s)\nWHERE run_id = %s AND job_name = %s AND partition_key = %s",
		d.Qualify(w.State.Audit), count, d.String(r.RunID), d.String(r.Job), d.String(r.Partition))
}

func auditKey(w *plan.Write) plan.AuditRow {
	if w.Audit != nil {
		return *w.Audit
	}
	r := plan.AuditRow{RunID: "<run_id>", Job: w.Model}
	if w.Window != nil {
		r.Partition = w.Window.Key
	}
	return r
}

// writeHooks are BigQuery's parts of the shared write steps: MERGE, and
// TRUNCATE TABLE for a full refresh (it keeps the table's options).
func (d Dialect) writeHooks() sqlgen.Hooks {
	return sqlgen.Hooks{Upsert: d.MergeSteps, EmptyTable: func(dest string) string { return "TRUNCATE TABLE " + dest }}
}

// StageRelation is the staging table of a unit's batch (insert_overwrite
// and key writes): a real table beside the destination, expiring after a
// day.
// Its name carries the partition and a hash of the run id, so that two
// runs (or two partitions) never share one.
func StageRelation(w *plan.Write) plan.Relation {
	r := w.Target
	untagged := *w // the run id's hash follows, below
	untagged.Audit = nil
	r.Name = sqlgen.StageName(&untagged)
	if w.Window != nil {
		r.Name += "_" + strings.TrimPrefix(Decorator(w.Window), "$")
	}
	r.Name += fmt.Sprintf("_%08x", Hash32(auditKey(w).RunID))
	return r
}

// stageStep builds a unit's batch in a staging table, as the unit's
// "stage" write job.
func (d Dialect) stageStep(comment, stage string, w *plan.Write) plan.Step {
	return plan.Step{Purpose: plan.Stage, Comment: comment, Job: &plan.JobSpec{Kind: "stage"},
		SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s\nOPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS\n%s", stage, d.Guarded(w))}
}

// overwriteRecipe is insert_overwrite: stage the guarded batch in a table,
// run every check on it, then a query job with WRITE_TRUNCATE writes it to
// table$PARTITION (BigQuery replaces that partition atomically).
func (d Dialect) overwriteRecipe(w *plan.Write) []plan.Step {
	stageRel := StageRelation(w)
	stage := d.Qualify(stageRel)
	sw := *w
	sw.Target = stageRel
	var steps []plan.Step
	add := func(p plan.Purpose, comment, sql string) {
		steps = append(steps, plan.Step{Purpose: p, Comment: comment, SQL: sql})
	}
	add(plan.Prepare, "the destination, partitioned by "+w.PartitionBy+", if it does not exist yet", d.createIfMissing(w))
	steps = append(steps, d.AuditStartStep(w))
	steps = append(steps, d.stageStep("build the partition in a staging table (expires in a day if a run dies)", stage, w))
	pn := sqlgen.PartitionNullCheck(w.PartitionBy)
	steps = append(steps, plan.Step{Purpose: plan.Validate, Comment: "a NULL " + w.PartitionBy + " would land in no partition", SQL: d.CheckQuery(pn, &sw, false), Check: pn})
	for _, c := range w.Checks {
		steps = append(steps, plan.Step{Purpose: plan.CheckStep, Comment: fmt.Sprintf("check %s (%s) on the staged partition, before publishing", c.Name, c.Severity), SQL: d.CheckQuery(c, &sw, false), Check: c})
	}
	dst := w.Target
	dst.Name += Decorator(w.Window)
	cols := "*"
	if w.Columns != nil {
		cols = d.ColumnList(w.Columns, "")
	}
	steps = append(steps, plan.Step{Purpose: plan.Publish, Comment: "replace partition " + w.Window.Key + " atomically: a query job writing " + dst.Name + " with WRITE_TRUNCATE",
		SQL: fmt.Sprintf("SELECT %s FROM %s", cols, stage), Job: &plan.JobSpec{Kind: "publish", Destination: &dst, Disposition: "WRITE_TRUNCATE"}})
	steps = append(steps, d.AuditFinishStep(w, "SELECT count(*) FROM "+stage))
	add(plan.Cleanup, "drop the staging table", "DROP TABLE IF EXISTS "+stage)
	return steps
}

var _ adapters.Dialect = Dialect{}

// CopyTable copies the destination aside for a unit that changes its
// columns: a table clone (CREATE TABLE … CLONE: a writable copy billed
// only for what changes), or, empty, CREATE TABLE … LIKE, which keeps the
// partitioning, clustering and options. Both are DDL, outside the script
// (BigQuery refuses DDL on permanent tables inside a transaction:
// cloud.google.com/bigquery/docs/transactions, "Statements supported").
func (d Dialect) CopyTable(aside, dest plan.Relation, rows bool) []string {
	how := "LIKE"
	if rows {
		how = "CLONE"
	}
	return []string{fmt.Sprintf("CREATE OR REPLACE TABLE %s %s %s", d.Qualify(aside), how, d.Qualify(dest))}
}

// SwapTable replaces the destination by the checked copy in one DDL job
// (CREATE OR REPLACE TABLE … CLONE replaces schema and rows together, or
// fails and leaves the table: a table copy's truncate or create "occur as
// one atomic update upon job completion" (JobConfigurationTableCopy), and
// a clone may overwrite an existing table (docs/table-clones-create); the
// copy has the destination's partitioning, which CREATE OR REPLACE
// requires). The copy is dropped after; old is not used.
func (d Dialect) SwapTable(dest, aside, old plan.Relation) string {
	// The runner's publish step of this statement is the unit's "swap" job.
	return fmt.Sprintf("CREATE OR REPLACE TABLE %s CLONE %s", d.Qualify(dest), d.Qualify(aside))
}

var _ adapters.AsideBuilder = Dialect{}

func init() {
	adapters.Register(&adapters.Adapter{
		Name: "bigquery", Dialect: NewDialect(), Capabilities: Capabilities,
		Settings: []string{"project", "database", "dataset", "location", "credentials_file"},
		Docs:     "partition replace and merge as ONE script job (BEGIN TRANSACTION … ASSERT checks … audit … COMMIT TRANSACTION); insert_overwrite stages, checks, then writes table$PARTITION with WRITE_TRUNCATE; job ids derived from unit and attempt; labels carry the run id",
	})
}
