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
		Decimal:    decimalType,
		IdentLimit: adapters.IdentLimit{Name: 1024, Column: 300, Bytes: true, ColumnChars: true}, // tables 1024 UTF-8 bytes, columns 300 characters
		Engine:     "bigquery", QuoteOpen: '`', QuoteEnd: '`', TextType: "STRING",
		// DROP SCHEMA is RESTRICT by default: a dataset that holds tables
		// (verify's scratch copy) is dropped only with CASCADE.
		DropSchemaCascade: true,
		// MD5 returns BYTES, TO_HEX makes it lowercase hex; CAST(… AS
		// STRING) of a DATE is YYYY-MM-DD.
		Key:        sqlgen.KeyFuncs{Length: "LENGTH", Concat: "CONCAT", Hash: "TO_HEX(MD5(%s))"},
		QuoteIdent: quoteIdent,
		StringLit:  stringLit,
		NullSafeEq: func(a, b string) string {
			return "(" + a + " = " + b + " OR (" + a + " IS NULL AND " + b + " IS NULL))"
		},
		BigInt: "INT64", Text: "STRING",
		AuditAppendOnly: true, // concurrent units must not UPDATE the one audit table (issue 12)
		// A MERGE that may update is a mutating DML, which BigQuery
		// serializes per table: two claims of one key never both insert.
		ClaimMatched: "WHEN MATCHED THEN UPDATE SET claimed_at = t.claimed_at",
		TypeFamily:   sqlgen.Families(typeFamilies, true),
		ColumnType:   columnType,
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
	ChecksInWrite: true, Lock: "a claimed row of idemc_locks per unit (waits while a live run holds it, takes over a dead run's); deterministic job ids per unit and attempt",
	TableInPlace: true, UnitClaim: true,
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
	return "SELECT table_schema, table_name, table_type FROM INFORMATION_SCHEMA.TABLES"
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

// withJobs gives every step of a recipe the unit's labels (the Session
// puts them on each job and derives the unit's write job ids from them);
// the script's COMMIT is its script job.
func withJobs(w *plan.Write, steps []plan.Step) []plan.Step {
	labels := Labels(w)
	for i := range steps {
		s := &steps[i]
		if s.Job == nil {
			s.Job = &plan.JobSpec{}
		}
		s.Job.Labels = labels
		if s.Purpose == plan.Commit {
			s.Job.Kind = "script"
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

// prepare creates the destination (partitioned like its windows) with the
// batch's columns and no rows: DDL, outside the script.
func (d Dialect) prepare(w *plan.Write) plan.Step {
	part, comment := "", "the destination, empty, if it does not exist yet (DDL, outside the script)"
	if w.Window != nil && w.PartitionBy != "" {
		part = "\nPARTITION BY " + d.PartitionExpr(w.PartitionBy, w.Window.Granularity)
	}
	if d.C.ShapeOf(w) == adapters.VerifyThenPublish {
		comment = "the destination, partitioned by " + w.PartitionBy + ", if it does not exist yet"
	}
	return plan.Step{Purpose: plan.Prepare, Comment: comment,
		SQL: fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s AS\nSELECT * FROM (\n%s\n) AS idemc_shape LIMIT 0", d.Qualify(w.Target), part, w.Select)}
}

// AssertMessage is the message of a check's ASSERT, by which the Session
// tells which check stopped a failed script.
func AssertMessage(c *plan.Check) string { return sqlgen.AssertMessage(c) }

// Recipe follows DESIGN §7 for BigQuery: a view is published, then
// checked (plain queries: there is no script to roll back);
// insert_overwrite verifies a staged partition, then publishes it; the
// other writes are one script (sqlgen's shapes), with the unit's labels on
// every job.
func (d Dialect) Recipe(w *plan.Write) []plan.Step {
	return withJobs(w, d.Gen.Recipe(d.hooks(), w))
}

// hooks are BigQuery's parts of the shared shapes: the script's
// statements, TRUNCATE TABLE to empty a table (it keeps its options and
// grants), a real staging table, and insert_overwrite's publish job.
func (d Dialect) hooks() sqlgen.Hooks {
	return sqlgen.Hooks{
		Begin: BeginSQL, Commit: CommitSQL,
		BeginNote:  "the Session buffers the statements up to COMMIT TRANSACTION and submits them as one script job",
		CommitNote: "submit the buffered script; BigQuery commits it whole or not at all",
		Upsert:     d.MergeSteps, EmptyTable: func(dest string) string { return "TRUNCATE TABLE " + dest },
		Prepare: d.prepare,
		View: func(w *plan.Write) []plan.Step {
			return []plan.Step{{Purpose: plan.Publish,
				Comment: "replace the view (DDL: not allowed inside a transaction; a failing check leaves the new view, marked failed)",
				SQL:     fmt.Sprintf("CREATE OR REPLACE VIEW %s AS\n%s", d.Qualify(w.Target), w.Select)}}
		},
		Staged: &sqlgen.Staged{Relation: StageRelation, Create: d.stageStep, Publish: d.publishPartition, Noun: "partition"},
	}
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
	run := "<run_id>"
	if w.Audit != nil {
		run = w.Audit.RunID
	}
	r.Name += fmt.Sprintf("_%08x", Hash32(run))
	return r
}

// stageStep builds a unit's batch in a staging table, as the unit's
// "stage" write job; it expires in a day if a run dies.
func (d Dialect) stageStep(w *plan.Write, stage, batch string) plan.Step {
	comment := "the batch, in a staging table (expires in a day if a run dies)"
	if d.C.ShapeOf(w) == adapters.VerifyThenPublish {
		comment = "build the partition in a staging table (expires in a day if a run dies)"
	}
	return plan.Step{Purpose: plan.Stage, Comment: comment, Job: &plan.JobSpec{Kind: "stage"},
		SQL: fmt.Sprintf("CREATE OR REPLACE TABLE %s\nOPTIONS (expiration_timestamp = TIMESTAMP_ADD(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)) AS\n%s", stage, batch)}
}

// publishPartition is insert_overwrite's publish: a query job with
// WRITE_TRUNCATE writes the checked stage to table$PARTITION (BigQuery
// replaces that partition atomically).
func (d Dialect) publishPartition(w *plan.Write, stage string) []plan.Step {
	dst := w.Target
	dst.Name += Decorator(w.Window)
	cols := "*"
	if w.Columns != nil {
		cols = d.ColumnList(w.Columns, "")
	}
	return []plan.Step{{Purpose: plan.Publish, Comment: "replace partition " + w.Window.Key + " atomically: a query job writing " + dst.Name + " with WRITE_TRUNCATE",
		SQL: fmt.Sprintf("SELECT %s FROM %s", cols, stage), Job: &plan.JobSpec{Kind: "publish", Destination: &dst, Disposition: "WRITE_TRUNCATE"}}}
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

// decimalType is NUMERIC(p,s) where it fits (scale ≤ 9, at most 29 digits
// before the point) and BIGNUMERIC(p,s) otherwise, which holds every
// decimal(p,s) with p ≤ 38 (BigQuery's parameterized decimal types).
func decimalType(p, s int) string {
	if s <= 9 && p-s <= 29 {
		return fmt.Sprintf("NUMERIC(%d,%d)", p, s)
	}
	return fmt.Sprintf("BIGNUMERIC(%d,%d)", p, s)
}
