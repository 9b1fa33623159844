package sqlgen

import (
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/plan"
)

// HTTPLedger is the idemc_http table beside a state's audit table: one row
// per (source, page URL) with what the page's last landing saw, and one
// row per source with url = ” holding its watermark (DESIGN §13).
func HTTPLedger(s plan.State) plan.Relation {
	return plan.Relation{Database: s.Audit.Database, Schema: s.Audit.Schema, Name: "idemc_http"}
}

// HTTPEntry is one ledger row. URL is redacted (no secret), Watermark is
// empty on page rows.
type HTTPEntry struct {
	Source, URL, ETag, LastModified, BodyHash, Next, Watermark, RunID string
	// Txn names the transaction that wrote the row: a cache entry is
	// trusted only when its transaction is one the ledger holds.
	Txn     string
	Fetched time.Time
}

// httpColumns are the ledger's columns, in order.
var httpColumns = []string{"source", "url", "etag", "last_modified", "body_hash", "next_url", "watermark", "run_id", "txn", "fetched_at"}

// HTTPLedgerDDL creates the ledger idempotently, typed with the dialect's
// seed types, so every engine needs no SQL of its own.
func HTTPLedgerDDL(d adapters.Dialect, s plan.State) string {
	text, ts := d.SeedType(seed.Text), d.SeedType(seed.Timestamp)
	defs := make([]string, len(httpColumns))
	for i, c := range httpColumns {
		defs[i] = c + " " + text
	}
	defs[len(defs)-1] = "fetched_at " + ts
	return fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (%s)", d.Qualify(HTTPLedger(s)), strings.Join(defs, ", "))
}

// HTTPLedgerRead reads a source's ledger rows (columns in httpColumns order
// up to watermark).
func HTTPLedgerRead(d adapters.Dialect, s plan.State, source string) string {
	return fmt.Sprintf("SELECT url, etag, last_modified, body_hash, next_url, watermark, txn FROM %s WHERE source = %s", d.Qualify(HTTPLedger(s)), d.String(source))
}

// HTTPLedgerPut replaces one ledger row: a delete and an insert, run in
// the transaction that lands the page (or advances the watermark).
func HTTPLedgerPut(d adapters.Dialect, s plan.State, e HTTPEntry) []string {
	lit := func(v string) string {
		if v == "" {
			return "NULL"
		}
		return d.String(v)
	}
	led := d.Qualify(HTTPLedger(s))
	return []string{
		fmt.Sprintf("DELETE FROM %s WHERE source = %s AND url = %s", led, d.String(e.Source), d.String(e.URL)),
		fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", led, strings.Join(httpColumns, ", "),
			d.String(e.Source), d.String(e.URL), lit(e.ETag), lit(e.LastModified), lit(e.BodyHash), lit(e.Next), lit(e.Watermark), lit(e.RunID), lit(e.Txn), d.Timestamp(e.Fetched)),
	}
}

// HTTPLedgerClear forgets a source's pages and watermark (a full refresh).
func HTTPLedgerClear(d adapters.Dialect, s plan.State, source string) string {
	return fmt.Sprintf("DELETE FROM %s WHERE source = %s", d.Qualify(HTTPLedger(s)), d.String(source))
}

// HTTPLedgerPrune forgets a source's pages other than keep (its
// watermark row stays).
func HTTPLedgerPrune(d adapters.Dialect, s plan.State, source string, keep []string) string {
	lits := make([]string, len(keep))
	for i, k := range keep {
		lits[i] = d.String(k)
	}
	q := fmt.Sprintf("DELETE FROM %s WHERE source = %s AND url <> ''", d.Qualify(HTTPLedger(s)), d.String(source))
	if len(lits) > 0 {
		q += " AND url NOT IN (" + strings.Join(lits, ", ") + ")"
	}
	return q
}

// HTTPDropUnchanged deletes from a page's landing table the records the
// destination already holds with the same content hash: what is left is
// what the merge writes. key and hash are the columns holding the record
// key and content hash on both sides.
func HTTPDropUnchanged(d adapters.Dialect, landing, dest plan.Relation, key, hash string) string {
	l := d.Qualify(landing)
	return fmt.Sprintf("DELETE FROM %s WHERE EXISTS (SELECT 1 FROM %s AS t WHERE t.%s = %s.%s AND t.%s = %s.%s)",
		l, d.Qualify(dest), d.Quote(key), l, d.Quote(key), d.Quote(hash), l, d.Quote(hash))
}
