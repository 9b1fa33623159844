package sqlgen

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"iter"
	"strings"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// maxParams bounds the bound values of one statement: MySQL and MariaDB
// refuse a prepared statement with more than 65,535 placeholders.
const maxParams = 65535

// SeedBatchRows is how many rows one INSERT of a seed load carries.
const SeedBatchRows = 500

// BoundSeedBatches renders a seed's rows as multi-row INSERTs into table
// of up to batch rows each (fewer for a wide seed, to stay under
// maxParams), with "?" parameters: the values are bound as their Go types
// (int64, float64, bool, time.Time, string; nil is NULL), so the driver
// sends each in its kind. For engines without a bulk path of their own
// whose driver binds parameters (MySQL/MariaDB, Snowflake).
func (g Gen) BoundSeedBatches(table plan.Relation, t *seed.Table, batch int) iter.Seq[adapters.SeedBatch] {
	return func(yield func(adapters.SeedBatch) bool) {
		width := len(t.Columns)
		if width == 0 {
			return
		}
		batch = max(1, min(batch, maxParams/width))
		row := "(" + strings.TrimSuffix(strings.Repeat("?, ", width), ", ") + ")"
		prefix := fmt.Sprintf("INSERT INTO %s (%s) VALUES ", g.Qualify(table), strings.Join(SeedColumnNames(g.Quote, t), ", "))
		for start := 0; start < len(t.Rows); start += batch {
			end := min(start+batch, len(t.Rows))
			args := make([]any, 0, (end-start)*width)
			for _, rec := range t.Rows[start:end] {
				args = append(args, rec...)
			}
			if !yield(adapters.SeedBatch{SQL: prefix + strings.TrimSuffix(strings.Repeat(row+", ", end-start), ", "), Args: args}) {
				return
			}
		}
	}
}

// LiteralSeedBatches renders a seed's rows as multi-row INSERTs of typed
// literals, batch rows each: each value's canonical text cast to its
// column's type, NULL for an empty field (Spark Connect binds no
// parameters).
func (g Gen) LiteralSeedBatches(table plan.Relation, t *seed.Table, batch int) iter.Seq[adapters.SeedBatch] {
	return func(yield func(adapters.SeedBatch) bool) {
		for start := 0; start < len(t.Rows); start += batch {
			if !yield(adapters.SeedBatch{SQL: g.literalRows(table, t, start, min(start+batch, len(t.Rows)))}) {
				return
			}
		}
	}
}

func (g Gen) literalRows(r plan.Relation, t *seed.Table, start, end int) string {
	rows := make([]string, 0, end-start)
	vals := make([]string, len(t.Columns))
	for i := start; i < end; i++ {
		for j, c := range t.Columns {
			if s, ok := t.Text(i, j); ok {
				vals[j] = fmt.Sprintf("CAST(%s AS %s)", g.String(s), g.SeedType(c.Kind))
			} else {
				vals[j] = "NULL"
			}
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return fmt.Sprintf("INSERT INTO %s VALUES %s", g.Qualify(r), strings.Join(rows, ", "))
}

// SeedColumnDefs renders a seed's column definitions ("id" BIGINT, …)
// with the dialect's quoting and seed types, for its CREATE TABLE.
func SeedColumnDefs(d interface {
	Quote(string) string
	SeedType(seed.Kind) string
}, t *seed.Table) string {
	defs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		defs[i] = d.Quote(c.Name) + " " + d.SeedType(c.Kind)
	}
	return strings.Join(defs, ", ")
}

// SeedColumnNames are a seed's quoted column names, in order.
func SeedColumnNames(quote func(string) string, t *seed.Table) []string {
	out := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = quote(c.Name)
	}
	return out
}

// SeedTypes are an engine's column types of the seed kinds where they
// differ from DefaultSeedTypes.
type SeedTypes map[seed.Kind]string

// DefaultSeedTypes is the one table of seed column types, as DuckDB
// spells them; each engine's Spelling.SeedTypes overrides a few.
var DefaultSeedTypes = SeedTypes{seed.BigInt: "BIGINT", seed.Double: "DOUBLE", seed.Boolean: "BOOLEAN",
	seed.Date: "DATE", seed.Timestamp: "TIMESTAMP", seed.Text: "VARCHAR"}

// SeedType maps a seed kind to the engine's column type (a kind unknown
// to both tables is text).
func (g Gen) SeedType(k seed.Kind) string {
	if p, s, ok := k.Decimal(); ok {
		if g.S.Decimal != nil {
			return g.S.Decimal(p, s)
		}
		return fmt.Sprintf("DECIMAL(%d,%d)", p, s)
	}
	for _, t := range []SeedTypes{g.S.SeedTypes, DefaultSeedTypes} {
		if s, ok := t[k]; ok {
			return s
		}
	}
	return g.SeedType(seed.Text)
}

// SeedAside is a seed load's aside relation on an engine without a lock
// around the load (SeedLoadName) and the statement creating r's schema,
// which the load runs first (none when r names no schema).
func (g Gen) SeedAside(r plan.Relation) (aside plan.Relation, prepare []string) {
	return g.SeedAsideTagged(r, "")
}

// SeedAsideTagged is SeedAside named by tag, the loading run's (see
// SeedLoadName).
func (g Gen) SeedAsideTagged(r plan.Relation, tag string) (aside plan.Relation, prepare []string) {
	if sc := g.CreateSchema(r); sc != "" {
		prepare = []string{sc}
	}
	return SeedLoadName(r, tag), prepare
}

// SeedLoadName is the relation a seed load fills before publishing it, on
// engines without a lock around the load (Snowflake, Spark): one name per
// load, so that two runners loading one seed at once never fill, replace
// or publish each other's half-loaded table (r__idemc_new_<tag>). A load
// that dies leaves its table behind: tag, 8 hex digits, is the loading
// run's when the engine knows it (Spark, Snowflake: the next run drops the
// tables of runs that are not alive, SeedLoadRun), else random.
func SeedLoadName(r plan.Relation, tag string) plan.Relation {
	if tag == "" {
		var b [4]byte
		_, _ = rand.Read(b[:])
		tag = hex.EncodeToString(b[:])
	}
	r.Name = portableDerive(r.Name, "__idemc_new_"+tag)
	return r
}
