// Package seed reads a seed (a CSV file under seeds/) into a typed table:
// one reader and one type inference for every engine, so the same file
// becomes the same columns and values on DuckDB, PostgreSQL, MariaDB and
// the rest. The compiler parses every seed when the project loads, so a
// malformed file is a compile error before anything is written; engines
// receive the typed Table and load it in bulk.
//
// The rules (docs/seeds.md keeps them for users) are deliberately
// conservative: a column becomes a number, boolean, date or timestamp only
// when every non-empty value is unambiguously one, so identifiers such as
// zip codes (00123) never lose their leading zeros on any engine.
package seed

import (
	"strings"
	"time"
)

// Kind is the engine-neutral type of a seed column. Each engine's dialect
// maps a kind to one of its types (SeedType).
type Kind string

// The kinds, in the order inference tries them.
const (
	BigInt    Kind = "bigint"
	Double    Kind = "double"
	Boolean   Kind = "boolean"
	Date      Kind = "date"
	Timestamp Kind = "timestamp"
	Text      Kind = "text"
)

// Kinds lists every kind, for column_types validation and messages.
var Kinds = []Kind{BigInt, Double, Boolean, Date, Timestamp, Text}

// KindNames are the kinds as strings, for "did you mean" suggestions.
func KindNames() []string {
	out := make([]string, len(Kinds))
	for i, k := range Kinds {
		out[i] = string(k)
	}
	return out
}

// ParseKind returns the kind named s as written in column_types: one of
// Kinds exactly, or decimal(p,s) / numeric(p,s) (canonicalized to
// decimal(p,s)); err explains a decimal type with bad bounds.
func ParseKind(s string) (Kind, bool) {
	k, ok, err := ParseKindErr(s)
	return k, ok && err == nil
}

// ParseKindErr is ParseKind with the reason a decimal(p,s) was refused.
func ParseKindErr(s string) (Kind, bool, error) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, true, nil
		}
	}
	return parseDecimalKind(s)
}

// Column is one column of a seed.
type Column struct {
	Name string
	Kind Kind
	// Declared is true when project.toml's column_types set the kind;
	// otherwise it was inferred from the values.
	Declared bool
}

// Table is a parsed, typed seed.
type Table struct {
	Columns []Column
	// Rows hold one value per column, typed by the column's kind: int64,
	// float64, bool, time.Time (UTC; a date is its midnight), Decimal or
	// string.
	// An empty field is nil (NULL).
	Rows [][]any
}

// Text returns the canonical text of row i, column j, and false for NULL:
// integers and decimals as Go prints them, true/false, dates as 2006-01-02,
// timestamps as 2006-01-02 15:04:05.999999999. For engines that load text
// (a BigQuery CSV load job, Spark literals).
func (t *Table) Text(i, j int) (string, bool) {
	return Format(t.Rows[i][j], t.Columns[j].Kind)
}

// Format renders one typed value of kind k as canonical text (false: NULL).
func Format(v any, k Kind) (string, bool) {
	switch x := v.(type) {
	case nil:
		return "", false
	case time.Time:
		if k == Date {
			return x.Format("2006-01-02"), true
		}
		return x.Format("2006-01-02 15:04:05.999999999"), true
	case Decimal:
		return x.String(), true
	default:
		return formatScalar(x), true
	}
}

// Error is a problem at one position of a seed file. Line and Col are
// 1-based; Col is 0 when the whole line is meant.
type Error struct {
	Line int
	Col  int
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// lookup finds a declared kind by column name, ignoring case (engines
// treat column names without regard to case, and the header admits no two
// names that differ only in case).
func lookup(types map[string]Kind, name string) (Kind, bool) {
	if k, ok := types[name]; ok {
		return k, true
	}
	for n, k := range types {
		if strings.EqualFold(n, name) {
			return k, true
		}
	}
	return "", false
}
