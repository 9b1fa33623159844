// Package sqlgen holds the SQL builders most engines share: the guarded batch,
// partition deletes, inserts, merges, checks and the audit statements. An
// engine's Dialect composes its recipes from these pieces and overrides the
// few that differ, so quoting and qualification happen here and never by
// concatenation at call sites.
package sqlgen

import (
	"crypto/md5"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/plan"
)

// Spelling is how one engine writes the small things that differ.
type Spelling struct {
	Engine    string
	QuoteOpen byte // '"' or '`'
	QuoteEnd  byte
	TextType  string // for CAST(x AS …) in surrogate keys and audit columns
	// RunIDCast is the CAST type of the _idemc_run_id lineage column where
	// TextType would not do ("": TextType; MySQL CHAR(255), LineageSelect).
	RunIDCast string
	// Key names the functions of the surrogate key; zero values are
	// char_length, concat and md5(%s).
	Key KeyFuncs
	// NullSafeEq renders a null-safe equality of two expressions (nil:
	// a IS NOT DISTINCT FROM b).
	NullSafeEq func(a, b string) string
	// DateLit and TimestampLit render typed literals from canonical text
	// (nil: DATE '…' and TIMESTAMP '…').
	DateLit      func(s string) string
	TimestampLit func(s string) string
	// Types of the audit table columns ("": BIGINT and TIMESTAMP).
	BigInt, Timestamp, Text string
	// Decimal spells the column type of a decimal(p,s) seed or HTTP
	// column (nil: DECIMAL(p,s); PostgreSQL numeric, Snowflake NUMBER,
	// BigQuery NUMERIC or BIGNUMERIC by their bounds).
	Decimal func(p, s int) string
	// StringEscapeBackslash: the engine treats \ in string literals as an escape (MySQL, BigQuery).
	StringEscapeBackslash bool
	// KeyText is the type of the audit's key columns when Text cannot be
	// indexed (MySQL); "" means Text.
	KeyText string
	// AuditIndex adds an index on the audit row's key, so that concurrent
	// audit updates lock only their own rows (InnoDB locks what it scans).
	AuditIndex bool
	// AuditAppendOnly: audit rows are only ever inserted, never updated
	// (BigQuery, where concurrent UPDATEs of one table conflict and
	// INSERTs do not): a unit's end is a second row of its attempt, and
	// readers take the latest row of each unit (audit.go).
	AuditAppendOnly bool
	// AuditIndexDDL, when set, returns the idempotent statement that
	// indexes the audit table's unit key in a statement of its own, run by
	// every run that has work (PostgreSQL; MySQL's AuditIndex declares it
	// in the CREATE TABLE): every unit's audit UPDATE finds its row by
	// (job_name, partition_key, run_id), a sequential scan without it (81
	// ms per unit at 1M rows). schema is the audit table's, table its
	// qualified name.
	AuditIndexDDL func(schema, table string) string
	// Latest is how idemc_latest rows are upserted (LatestOnConflict,
	// LatestOnDuplicate); "" keeps no latest table and reads the state from
	// the audit table's ranking (BigQuery's append-only audit, Spark's
	// Delta, Snowflake: concurrent units' upserts of one shared table).
	Latest string
	// NameText is the type of idemc_latest's destination columns when
	// KeyText is too long for its primary key (MySQL: VARCHAR(64), its
	// identifier limit); "" means KeyText.
	NameText string
	// TableOptions follow the column list of the tables StateDDL creates
	// ("USING DELTA": Spark's default format may be another).
	TableOptions string
	// ClaimTableOptions, when set, replace TableOptions for the lock table
	// (Spark partitions it by key: Delta checks conflicts per partition,
	// so claims of different units do not conflict).
	ClaimTableOptions string
	// ClaimMatched is a unit claim's MERGE clause for a key already
	// claimed ("" none): a no-op UPDATE, so that the engine serializes two
	// claims of the table as it does any MERGE that updates (BigQuery's
	// mutating DML, Snowflake's table lock) instead of letting both insert.
	ClaimMatched string
	// ClaimCounts: the claim's affected rows are the rows it inserted (no
	// ClaimMatched clause, and two claims of one key conflict: Delta), so
	// 1 means the run holds the key and the holder read is skipped.
	ClaimCounts bool
	// PartitionIndex indexes a partitioned destination's partition column
	// when idemc creates it (MySQL: so that a window's DELETE and the NULL
	// check read the window, not the table).
	PartitionIndex bool
	// PartitionIndexDDL, when set, indexes a partitioned destination's
	// partition column in a separate idempotent statement (PostgreSQL).
	PartitionIndexDDL func(table, index, column string) string
	// HexToInt turns 8 hex digits (text) into an integer (fingerprints).
	// Nil: CAST(('0x' || h) AS BIGINT) (DuckDB).
	HexToInt func(h string) string
	// DropSchemaCascade: DROP SCHEMA needs CASCADE to drop its tables.
	DropSchemaCascade bool
	// QuoteIdent, when set, quotes one identifier instead of QuoteOpen +
	// name with QuoteEnd doubled + QuoteEnd (Snowflake folds simple names to
	// upper case; BigQuery escapes a backtick with a backslash).
	QuoteIdent func(ident string) string
	// StringLit, when set, renders a string literal instead of the default
	// '…' with ' doubled (BigQuery and Spark escape with a backslash).
	StringLit func(s string) string
	// DeleteFrom starts a DELETE of the destination under an alias
	// ("DELETE FROM d AS t"; MySQL: "DELETE t FROM d AS t"). Nil: the former.
	DeleteFrom func(dest, alias string) string
	// CurrentSchema is the SQL expression of the session's default schema,
	// where an unqualified relation lives (DuckDB/PostgreSQL current_schema(),
	// MySQL DATABASE()); "" when relations always name their schema.
	CurrentSchema string
	// SeedTypes are the column types of seed tables, by inferred kind
	// (MySQL keeps microseconds with DATETIME(6), as the other engines do).
	SeedTypes SeedTypes
	// TypeFamily maps a type name, as the driver or the catalog spells it,
	// to its family for on_schema_change ("" unknown). Nil: no type change
	// is ever detected.
	TypeFamily func(t string) string
	// TypeFits, when set, decides between two types of one family whether
	// the destination's holds the batch's values (DuckDB decimals).
	TypeFits func(dest, batch string) bool
	// IdentLimit is the engine's identifier length limit (Dialect.IdentLimit).
	IdentLimit adapters.IdentLimit
	// ColumnType maps a batch's driver type name to a column type for DDL
	// (MySQL's VARCHAR has no length; pgx's BPCHAR would be char(1)). Nil:
	// the name as it is.
	ColumnType func(t string) string
	// Median, when set, is the engine's exact median aggregate of an
	// expression (drift rules); nil: the middle rows by ROW_NUMBER, which
	// every engine with window functions runs (MySQL has no median;
	// MariaDB's MEDIAN() is a window function only, mariadb.com/kb/en/median;
	// BigQuery's PERCENTILE_CONT is analytic only).
	Median func(expr string) string
}

// Gen builds SQL for one spelling. It implements the shared part of
// adapters.Dialect; engines embed it and add Recipe.
type Gen struct {
	S Spelling
	// C are the engine's capabilities: Recipe chooses a recipe's shape
	// from them.
	C adapters.Capabilities
}

// Name is the engine name.
func (g Gen) Name() string { return g.S.Engine }

// Quote quotes one identifier, doubling any embedded quote character.
func (g Gen) Quote(ident string) string {
	if g.S.QuoteIdent != nil {
		return g.S.QuoteIdent(ident)
	}
	q := string(g.S.QuoteEnd)
	return string(g.S.QuoteOpen) + strings.ReplaceAll(ident, q, q+q) + q
}

// Qualify renders database.schema.name, skipping empty parts.
func (g Gen) Qualify(r plan.Relation) string {
	var b strings.Builder
	for _, p := range []string{r.Database, r.Schema} {
		if p != "" {
			b.WriteString(g.Quote(p))
			b.WriteByte('.')
		}
	}
	b.WriteString(g.Quote(r.Name))
	return b.String()
}

// String renders a string literal.
func (g Gen) String(s string) string {
	if g.S.StringLit != nil {
		return g.S.StringLit(s)
	}
	if g.S.StringEscapeBackslash {
		s = strings.ReplaceAll(s, `\`, `\\`)
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// WindowLiteral renders a partition bound.
func (g Gen) WindowLiteral(t time.Time, granularity string) string {
	if granularity == "hour" {
		return g.Timestamp(t)
	}
	d := t.UTC().Format("2006-01-02")
	if g.S.DateLit == nil {
		return "DATE '" + d + "'"
	}
	return g.S.DateLit(d)
}

// Timestamp renders a timestamp literal in UTC, with microseconds when it
// has them (audit times order units finishing within one second).
func (g Gen) Timestamp(t time.Time) string {
	ts := t.UTC().Truncate(time.Microsecond).Format("2006-01-02 15:04:05.999999")
	if g.S.TimestampLit == nil {
		return "TIMESTAMP '" + ts + "'"
	}
	return g.S.TimestampLit(ts)
}

// SurrogateKey renders md5 over length-prefixed text parts: a NULL becomes
// "~", any other value "len:text", parts joined by "|". The encoding is
// unambiguous and gives the same hex on every engine for text, integer and
// date inputs.
func (g Gen) SurrogateKey(exprs []string) string {
	k := g.S.Key
	length, concat, hash := or(k.Length, "char_length"), or(k.Concat, "concat"), or(k.Hash, "md5(%s)")
	parts := make([]string, 0, 2*len(exprs))
	for i, e := range exprs {
		if i > 0 {
			parts = append(parts, "'|'")
		}
		txt := fmt.Sprintf("CAST(%s AS %s)", e, g.S.TextType)
		parts = append(parts, fmt.Sprintf("CASE WHEN %s IS NULL THEN '~' ELSE %s(CAST(%s(%s) AS %s), ':', %s) END", e, concat, length, txt, g.S.TextType, txt))
	}
	if len(parts) == 1 {
		return fmt.Sprintf(hash, parts[0])
	}
	return fmt.Sprintf(hash, concat+"("+strings.Join(parts, ", ")+")")
}

// KeyFuncs are the functions of an engine's surrogate key: Length counts
// characters, Concat joins text, Hash (a format of one %s) gives the
// lowercase hex MD5. BigQuery: LENGTH, CONCAT, TO_HEX(MD5(%s)); Snowflake:
// LENGTH, CONCAT, MD5(%s).
type KeyFuncs struct {
	Length, Concat, Hash string
}

func or(s, dflt string) string {
	if s == "" {
		return dflt
	}
	return s
}

// DescribeQuery returns no rows but the SELECT's columns.
func (g Gen) DescribeQuery(sql string) string {
	return "SELECT * FROM (\n" + sql + "\n) AS idemc_describe LIMIT 0"
}

// StageName is the batch relation of a unit. A run's stage carries the
// random part of its run id, so that concurrent runners of one unit never
// share a stage on engines whose stage is a real table (Spark, BigQuery);
// it is shortened with a hash when the destination's name is long
// (portableDerive).
func StageName(w *plan.Write) string {
	suffix := "__idemc_stage"
	if w.Audit != nil {
		if _, tag, ok := strings.Cut(w.Audit.RunID, "-"); ok && tag != "" {
			suffix += "_" + tag
		}
	}
	return portableDerive(w.Target.Name, suffix)
}

// ColumnList renders quoted columns with an optional alias prefix, or a
// placeholder comment when the columns are known only at run time.
func (g Gen) ColumnList(cols []string, alias string) string {
	if cols == nil {
		return "/* columns of the batch */ *"
	}
	out := make([]string, len(cols))
	for i, c := range cols {
		if alias != "" {
			out[i] = alias + "." + g.Quote(c)
		} else {
			out[i] = g.Quote(c)
		}
	}
	return strings.Join(out, ", ")
}

// Window renders the partition predicate `col >= start AND col < end` with
// an optional table alias.
func (g Gen) Window(w *plan.Write, alias string) string {
	col := g.Quote(w.PartitionBy)
	if alias != "" {
		col = alias + "." + col
	}
	return fmt.Sprintf("%s >= %s AND %s < %s", col, g.WindowLiteral(w.Window.Start, w.Window.Granularity), col, g.WindowLiteral(w.Window.End, w.Window.Granularity))
}

// Guarded wraps the model's SELECT so the batch cannot leave the unit's
// window; NULL partition values are kept so the partition check can refuse
// them loudly.
func (g Gen) Guarded(w *plan.Write) string {
	if w.Window == nil || w.PartitionBy == "" {
		return w.Select
	}
	return fmt.Sprintf("SELECT * FROM (\n%s\n) AS idemc_batch\nWHERE (%s) OR %s IS NULL", w.Select, g.Window(w, ""), g.Quote(w.PartitionBy))
}

// CreateIfMissing creates the destination with the batch's columns and no rows.
func (g Gen) CreateIfMissing(w *plan.Write) string {
	index := ""
	if g.S.PartitionIndex && w.PartitionBy != "" && w.Window != nil {
		index = " (KEY idemc_partition (" + g.Quote(w.PartitionBy) + "))"
	}
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s%s AS\nSELECT * FROM (\n%s\n) AS idemc_shape LIMIT 0", g.Qualify(w.Target), index, w.Select)
}

// CreateSchema creates the destination's schema if needed.
func (g Gen) CreateSchema(r plan.Relation) string {
	if r.Schema == "" {
		return ""
	}
	return "CREATE SCHEMA IF NOT EXISTS " + g.Qualify(plan.Relation{Database: r.Database, Name: r.Schema})
}

// Region is the predicate of the rows a unit owns in the destination (alias t):
// the window for a partition write, the batch's keys for a key write, and
// nothing (everything) for a table.
func (g Gen) Region(w *plan.Write, alias, stage string) string {
	switch {
	case w.Window != nil && w.PartitionBy != "":
		return g.Window(w, alias)
	case len(w.UniqueKey) > 0 && w.Materialized == plan.Incremental:
		return fmt.Sprintf("EXISTS (SELECT 1 FROM %s AS s WHERE %s)", stage, g.KeyMatch(w.UniqueKey, alias, "s"))
	}
	return ""
}

// KeyMatch renders a null-safe match of every key column between two aliases.
func (g Gen) KeyMatch(keys []string, a, b string) string {
	parts := make([]string, len(keys))
	for i, k := range keys {
		x, y := a+"."+g.Quote(k), b+"."+g.Quote(k)
		if g.S.NullSafeEq == nil {
			parts[i] = x + " IS NOT DISTINCT FROM " + y
		} else {
			parts[i] = g.S.NullSafeEq(x, y)
		}
	}
	return strings.Join(parts, " AND ")
}

// DeleteRegion deletes the rows the unit owns (window or batch keys).
func (g Gen) DeleteRegion(w *plan.Write, stage string) string {
	del := "DELETE FROM " + g.Qualify(w.Target) + " AS t"
	if g.S.DeleteFrom != nil {
		del = g.S.DeleteFrom(g.Qualify(w.Target), "t")
	}
	return del + "\nWHERE " + g.Region(w, "t", stage)
}

// InsertFromStage copies the batch into the destination.
func (g Gen) InsertFromStage(w *plan.Write, stage string) string {
	if w.Columns == nil {
		return fmt.Sprintf("INSERT INTO %s\nSELECT * FROM %s", g.Qualify(w.Target), stage)
	}
	cols := g.ColumnList(w.Columns, "")
	return fmt.Sprintf("INSERT INTO %s (%s)\nSELECT %s FROM %s", g.Qualify(w.Target), cols, cols, stage)
}

// UpdateColumns is the list of columns a matched merge row updates.
func UpdateColumns(w *plan.Write) []string {
	if len(w.UpdateColumns) > 0 {
		return w.UpdateColumns
	}
	skip := map[string]bool{}
	for _, k := range w.UniqueKey {
		skip[strings.ToLower(k)] = true
	}
	for _, k := range w.ExcludeColumns {
		skip[strings.ToLower(k)] = true
	}
	var out []string
	for _, c := range w.Columns {
		if !skip[strings.ToLower(c)] {
			out = append(out, c)
		}
	}
	return out
}

// Merge renders a standard MERGE of the batch into the destination,
// matching keys null-safely.
func (g Gen) Merge(w *plan.Write, stage string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "MERGE INTO %s AS t\nUSING %s AS s\nON %s\n", g.Qualify(w.Target), stage, g.KeyMatch(w.UniqueKey, "t", "s"))
	if w.Columns == nil {
		b.WriteString("WHEN MATCHED THEN UPDATE SET /* every batch column but the key and merge_exclude_columns */\n")
		b.WriteString("WHEN NOT MATCHED THEN INSERT /* every batch column */")
		return b.String()
	}
	if upd := UpdateColumns(w); len(upd) > 0 {
		sets := make([]string, len(upd))
		for i, c := range upd {
			sets[i] = fmt.Sprintf("%s = s.%s", g.Quote(c), g.Quote(c))
		}
		fmt.Fprintf(&b, "WHEN MATCHED THEN UPDATE SET %s\n", strings.Join(sets, ", "))
	}
	fmt.Fprintf(&b, "WHEN NOT MATCHED THEN INSERT (%s) VALUES (%s)", g.ColumnList(w.Columns, ""), g.ColumnList(w.Columns, "s"))
	return b.String()
}

// BatchKeyCheck is the implicit check that a merge batch has no duplicate key.
func BatchKeyCheck(keys []string) *plan.Check {
	return &plan.Check{Name: "batch_unique_key(" + strings.Join(keys, ", ") + ")", Kind: plan.CheckBatchKeys, Severity: "error", Columns: keys}
}

// PartitionNullCheck is the implicit check that no batch row has a NULL partition value.
func PartitionNullCheck(col string) *plan.Check {
	return &plan.Check{Name: "not_null(" + col + ")", Kind: plan.CheckPartitionNull, Severity: "error", Columns: []string{col}}
}

// SampleLimit is how many failing rows a check returns.
const SampleLimit = 5

// CheckQuery renders a check as a query returning failing rows. rel is the
// relation checked (the destination or, for batch checks, the stage).
func (g Gen) CheckQuery(c *plan.Check, w *plan.Write, whole bool) string {
	return g.CheckQueryOn(c, w, whole, "")
}

// CheckQueryOn is CheckQuery with the unit's batch read from stage, a
// relation's SQL name ("" for the shared recipe's stage, StageName): the
// staging tables of BigQuery and Spark are real tables with names of
// their own.
func (g Gen) CheckQueryOn(c *plan.Check, w *plan.Write, whole bool, stage string) string {
	if stage == "" {
		stage = g.Quote(StageName(w))
	}
	from := g.Qualify(w.Target) + " AS t"
	where := ""
	if !whole {
		where = g.Region(w, "t", stage)
	}
	and := func(cond string) string {
		if where == "" {
			return "\nWHERE " + cond
		}
		return "\nWHERE (" + where + ") AND " + cond
	}
	whereOnly := ""
	if where != "" {
		whereOnly = "\nWHERE " + where
	}
	lim := fmt.Sprintf("\nLIMIT %d", SampleLimit)
	switch c.Kind {
	case plan.CheckBatchKeys:
		cols := g.ColumnList(c.Columns, "")
		return fmt.Sprintf("SELECT %s, count(*) AS n FROM %s\nGROUP BY %s\nHAVING count(*) > 1%s", cols, stage, cols, lim)
	case plan.CheckPartitionNull:
		// Any NULL partition row in the destination is this unit's: no
		// earlier unit could commit one.
		return fmt.Sprintf("SELECT count(*) AS n FROM %s\nWHERE %s IS NULL\nHAVING count(*) > 0", g.Qualify(w.Target), g.Quote(c.Columns[0]))
	case plan.CheckUnique:
		cols := g.ColumnList(c.Columns, "t")
		return fmt.Sprintf("SELECT %s, count(*) AS n FROM %s%s\nGROUP BY %s\nHAVING count(*) > 1%s", cols, from, whereOnly, cols, lim)
	case plan.CheckNotNull:
		conds := make([]string, len(c.Columns))
		for i, col := range c.Columns {
			conds[i] = "t." + g.Quote(col) + " IS NULL"
		}
		return fmt.Sprintf("SELECT * FROM %s%s%s", from, and("("+strings.Join(conds, " OR ")+")"), lim)
	case plan.CheckAcceptedValues:
		col := "t." + g.Quote(c.Columns[0])
		vals := make([]string, len(c.Values))
		for i, v := range c.Values {
			vals[i] = g.String(v)
		}
		return fmt.Sprintf("SELECT %s, count(*) AS n FROM %s%s\nGROUP BY %s%s", col, from,
			and(fmt.Sprintf("%s IS NOT NULL AND %s NOT IN (%s)", col, col, strings.Join(vals, ", "))), col, lim)
	case plan.CheckRelationships:
		col := "t." + g.Quote(c.Columns[0])
		return fmt.Sprintf("SELECT %s FROM %s%s%s", col, from,
			and(fmt.Sprintf("%s IS NOT NULL AND NOT EXISTS (SELECT 1 FROM %s AS o WHERE o.%s = %s)", col, g.Qualify(c.To), g.Quote(c.ToColumn), col)), lim)
	case plan.CheckRowCountMatches:
		if whole && w.PartitionBy != "" {
			// Over the whole table: each partition value present must
			// match the source's count for that value.
			pc, sc := g.Quote(w.PartitionBy), g.Quote(c.SourceColumn)
			return fmt.Sprintf("SELECT w.p AS %s, w.n AS written, coalesce(s.n, 0) AS source FROM\n(SELECT t.%s AS p, count(*) AS n FROM %s GROUP BY t.%s) AS w\nLEFT JOIN (SELECT src.%s AS p, count(*) AS n FROM %s AS src GROUP BY src.%s) AS s ON s.p = w.p\nWHERE w.n <> coalesce(s.n, 0)%s",
				pc, pc, from, pc, sc, g.Qualify(c.Source), sc, lim)
		}
		src := fmt.Sprintf("SELECT count(*) AS n FROM %s AS src", g.Qualify(c.Source))
		if !whole && w.Window != nil {
			sw := *w
			sw.PartitionBy = c.SourceColumn
			src += "\nWHERE " + g.Window(&sw, "src")
		}
		return fmt.Sprintf("SELECT w.n AS written, s.n AS source FROM\n(SELECT count(*) AS n FROM %s%s) AS w,\n(%s) AS s\nWHERE w.n <> s.n", from, whereOnly, src)
	case plan.CheckMinRows:
		return fmt.Sprintf("SELECT n FROM (SELECT count(*) AS n FROM %s%s) AS c\nWHERE n < %s", from, whereOnly, strconv.FormatInt(c.MinRows, 10))
	case plan.CheckExpect:
		// An empty region has nothing to hold the expression against
		// (sum() is NULL): min_rows is the check for emptiness. A NULL
		// verdict fails; NOT coalesce(ok, FALSE) says so on every engine
		// (Snowflake's predicates have IS [NOT] NULL and IS [NOT] DISTINCT
		// FROM but no IS [NOT] TRUE, which it rejects).
		return fmt.Sprintf("SELECT ok FROM (SELECT (%s) AS ok, count(*) AS n FROM %s%s) AS c\nWHERE n > 0 AND NOT coalesce(ok, FALSE)", c.Expr, from, whereOnly)
	case plan.CheckDriftRowCount, plan.CheckDriftZeroRows:
		return g.driftQuery(c, w, from, whereOnly)
	}
	panic("sqlgen: unknown check kind " + c.Kind)
}

// DefaultSchemaQuery returns one row: the schema unqualified relations
// resolve to ("" when the engine has no such expression).
func (g Gen) DefaultSchemaQuery() string {
	if g.S.CurrentSchema == "" {
		return ""
	}
	return "SELECT " + g.S.CurrentSchema
}

// SchemaOf is r's schema as a SQL expression: the literal, or the session's
// default schema when r names none.
func (g Gen) SchemaOf(r plan.Relation) string {
	if r.Schema == "" && g.S.CurrentSchema != "" {
		return g.S.CurrentSchema
	}
	return g.String(r.Schema)
}

// EmptyQuery lists which of rels hold no row.
func (g Gen) EmptyQuery(rels []plan.Relation) string {
	parts := make([]string, len(rels))
	for i, r := range rels {
		parts[i] = fmt.Sprintf("SELECT %d AS i FROM (SELECT 1 AS one) AS x WHERE NOT EXISTS (SELECT 1 FROM %s)", i, g.Qualify(r))
	}
	return strings.Join(parts, "\nUNION ALL\n")
}

// RelationsQuery lists tables and views from information_schema, with
// their kind (a view is not an incremental model's relation).
func (g Gen) RelationsQuery() string {
	return "SELECT table_schema, table_name, table_type FROM information_schema.tables"
}

// Rollback ends a failed transaction.
func (g Gen) Rollback() string { return "ROLLBACK" }

// StateSteps replace a watermark model's high-water mark with the batch's
// maximum, inside the write's transaction; an empty batch keeps the old mark.
func (g Gen) StateSteps(w *plan.Write, stage string) []plan.Step {
	if w.Watermark == nil {
		return nil
	}
	col := g.Quote(w.Watermark.Column)
	run := ""
	if w.Audit != nil {
		run = w.Audit.RunID
	}
	return []plan.Step{
		{Purpose: plan.StateStep, Comment: "forget the old high-water mark if the batch has rows",
			SQL: fmt.Sprintf("DELETE FROM %s WHERE job_name = %s AND EXISTS (SELECT 1 FROM %s WHERE %s IS NOT NULL)", g.Qualify(w.State.Marks), g.String(w.Model), stage, col)},
		{Purpose: plan.StateStep, Comment: "record the batch's maximum " + w.Watermark.Column,
			SQL: fmt.Sprintf("INSERT INTO %s (job_name, high_water, run_id, updated_at)\nSELECT %s, CAST(max(%s) AS %s), %s, %s FROM %s HAVING max(%s) IS NOT NULL",
				g.Qualify(w.State.Marks), g.String(w.Model), col, g.S.TextType, g.String(run), tsOrNull(g, auditTime(w)), stage, col)},
	}
}

func auditTime(w *plan.Write) time.Time {
	if w.Audit == nil {
		return time.Time{}
	}
	return w.Audit.Started
}

// Fingerprint sums a 32-bit hash of each row's text (NULL as "~") and counts
// the rows: equal content gives equal fingerprints in any row order.
func (g Gen) Fingerprint(r plan.Relation, where string, cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = fmt.Sprintf("coalesce(CAST(t.%s AS %s), '~')", g.Quote(c), g.S.TextType)
	}
	row := "concat(" + strings.Join(parts, ", '|', ") + ")"
	if len(cols) == 1 {
		row = parts[0]
	}
	h := "substr(md5(" + row + "), 1, 8)"
	hexInt := "CAST(('0x' || " + h + ") AS BIGINT)"
	if g.S.HexToInt != nil {
		hexInt = g.S.HexToInt(h)
	}
	q := fmt.Sprintf("SELECT count(*) AS n, coalesce(sum(%s), 0) AS h FROM %s AS t", hexInt, g.Qualify(r))
	if where != "" {
		q += " WHERE " + where
	}
	return q
}

// DropSchema drops a scratch schema with its tables.
func (g Gen) DropSchema(schema string) string {
	q := "DROP SCHEMA IF EXISTS " + g.Quote(schema)
	if g.S.DropSchemaCascade {
		q += " CASCADE"
	}
	return q
}

// SurrogateKeyOf computes DESIGN §5's key in Go from the parts' text (nil
// is NULL): the value every dialect's SurrogateKey must produce. Tests of
// each engine compare against it.
func SurrogateKeyOf(parts ...*string) string {
	enc := make([]string, len(parts))
	for i, p := range parts {
		if p == nil {
			enc[i] = "~"
		} else {
			enc[i] = strconv.Itoa(len([]rune(*p))) + ":" + *p
		}
	}
	sum := md5.Sum([]byte(strings.Join(enc, "|")))
	return hex.EncodeToString(sum[:])
}
