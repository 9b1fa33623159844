package runner

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/idemc/idemc/adapters"
	"github.com/idemc/idemc/adapters/seed"
	"github.com/idemc/idemc/adapters/sqlgen"
	"github.com/idemc/idemc/compiler/project"
	"github.com/idemc/idemc/internal/httpsource"
	"github.com/idemc/idemc/plan"
)

// AfterCache is the purpose the fault hook sees after an HTTP page's
// records were marked in the cache and before its transaction commits.
const AfterCache plan.Purpose = "cache"

// httpLoad is one HTTP source unit being landed (docs/http.md): every page
// is bulk-loaded into a landing table of its own, its unchanged records
// dropped there, and the rest merged by key with its ledger row in one
// transaction.
type httpLoad struct {
	r       *run
	sess    adapters.Session
	u       *plan.Unit
	ur      *UnitResult
	row     *plan.AuditRow
	src     *project.HTTPSource
	rel     plan.Relation
	landing plan.Relation
	exists  bool
	kinds   map[string]seed.Kind // the destination's columns' kinds
	wm      time.Time            // the committed watermark (zero: none)
	newWM   time.Time            // the highest since-column value landed in this run
	cutoff  time.Time            // as_of − lag: records updated later wait for a later run
	cache   *recordCache
	written int64
	txn     string   // the current page's transaction, in its ledger row
	visited []string // the pages fetched so far
	prev    map[string]httpsource.Entry
	landed  bool // a landing table was created
}

// runHTTP fetches an HTTP source and lands it, and records it in the audit
// table like any unit.
func (r *run) runHTTP(ctx context.Context, sess adapters.Session, u *plan.Unit, ur *UnitResult) {
	row := &plan.AuditRow{RunID: r.res.RunID, Job: u.Model, CodeHash: u.CodeHash, Target: r.pl.Target, AsOf: r.pl.AsOf, Started: time.Now().UTC(),
		Attempt: r.db.nextAttempt(u.Model, ""), Inputs: u.Inputs, DataVersion: u.DataVersion, Dest: r.destOf(u)}
	if err := execAll(ctx, sess, r.startSQL(row)); err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		if ctx.Err() != nil {
			r.interrupted(ctx, sess, nil, row, &unitState{}, ur)
		}
		return
	}
	h := &httpLoad{r: r, sess: sess, u: u, ur: ur, row: row, src: r.p.HTTPSourceNamed(u.Model), rel: r.pl.Nodes[u.Model].Relation}
	stats, err := h.run(ctx)
	if h.cache != nil {
		h.cache.close()
	}
	if h.landed {
		_, _ = adapters.ExecSQL(context.WithoutCancel(ctx), sess, r.d.DropTable(h.landing))
	}
	ur.Note = summaryOf(stats, h.written)
	if h.cache != nil {
		ur.Note += fmt.Sprintf("; cache skipped %d records", h.cache.skipped)
	}
	if h.cache != nil && h.cache.err != nil {
		ur.Note += fmt.Sprintf("; cache not used after an error (%v): it only saves work", h.cache.err)
	}
	frow := *row
	frow.Ended = time.Now().UTC()
	if err != nil && ctx.Err() != nil {
		// Every committed page is whole: the next run goes on from there.
		r.interrupted(ctx, sess, nil, row, &unitState{audited: true}, ur)
		return
	}
	if err != nil {
		// The pages before the failure are committed: say how many rows.
		ur.Status, ur.Error, ur.Rows = StatusFailed, fmt.Sprintf("http source %s: %v", u.Model, err), h.written
		frow.Status, frow.Error = "failed", ur.Error
		_ = execAll(context.WithoutCancel(ctx), sess, r.finishSQL(&frow, ""))
		return
	}
	frow.Status = "succeeded"
	if err := execAll(ctx, sess, r.finishSQL(&frow, fmt.Sprint(h.written))); err != nil {
		ur.Status, ur.Error = StatusFailed, err.Error()
		return
	}
	ur.Status, ur.Rows = StatusSucceeded, h.written
}

func summaryOf(s httpsource.Stats, written int64) string {
	return fmt.Sprintf("%d requests (%d conditional, %d not modified, %d retried), %d pages, %d records fetched, %d written, %s",
		s.Requests, s.Conditional, s.NotModified, s.Retries, s.Pages, s.Records, written, byteSize(s.Bytes))
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func (h *httpLoad) run(ctx context.Context) (httpsource.Stats, error) {
	r, src := h.r, h.src
	if src == nil {
		return httpsource.Stats{}, fmt.Errorf("no [http.%s] in %s", h.u.Model, project.FileName)
	}
	secrets := map[string]string{}
	first, err := expandEnv(src.URL, "url", src.Name, secrets)
	if err != nil {
		return httpsource.Stats{}, err
	}
	headers := map[string]string{}
	for k, v := range src.Headers {
		if headers[k], err = expandEnv(v, "headers."+k, src.Name, secrets); err != nil {
			return httpsource.Stats{}, err
		}
	}
	if src.Cache != "" {
		if h.cache, err = openCache(ctx, src, secrets); err != nil {
			return httpsource.Stats{}, err
		}
	}
	prev, err := h.prepare(ctx)
	if err != nil {
		return httpsource.Stats{}, err
	}
	h.prev = prev
	if first, err = h.window(first); err != nil {
		return httpsource.Stats{}, err
	}
	o := httpsource.Options{URL: first, Records: src.Records, Headers: headers, Secrets: secrets, MaxPages: src.MaxPages, MaxRequests: r.o.MaxRequests,
		Paging: httpsource.Paging{Style: src.Next.Style, Path: src.Next.Path, Param: src.Next.Param},
		Prev:   func(k string) (httpsource.Entry, bool) { e, ok := prev[k]; return e, ok }}
	if r.o.HTTPRetryBase > 0 {
		o.Backoff = r.o.HTTPRetryBase
	}
	var bytes int64
	return httpsource.Fetch(ctx, o, func(p *httpsource.Page) error {
		bytes += int64(p.Bytes)
		h.progress(p, bytes)
		return h.land(ctx, p)
	})
}

func newToken() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// expandEnv replaces ${VAR}s from the environment and records their values
// as secrets, so that they are redacted wherever a URL is shown or kept.
func expandEnv(v, what, source string, secrets map[string]string) (string, error) {
	out, m := project.ExpandVars(v, func(name string) (string, bool) {
		val, ok := project.SetAndNotEmpty(name)
		secrets[name] = val
		return val, ok
	})
	missing := ""
	if len(m) > 0 {
		missing = m[0]
	}
	if missing != "" {
		return "", fmt.Errorf("[http.%s] %s needs environment variable %s, which is not set (or empty): export %s=…", source, what, missing, missing)
	}
	return out, nil
}

// prepare creates the ledger and the schema, applies a full refresh, and
// reads what the ledger knows of the source: nothing when the destination
// is missing (its rows are gone, so every page must land again).
func (h *httpLoad) prepare(ctx context.Context) (map[string]httpsource.Entry, error) {
	r, sess := h.r, h.sess
	stmts := []string{sqlgen.HTTPLedgerDDL(r.d, r.state)}
	if sc := r.d.CreateSchema(h.rel); sc != "" {
		stmts = append(stmts, sc)
	}
	if r.o.Compile.FullRefresh {
		stmts = append(stmts, r.d.DropTable(h.rel), sqlgen.HTTPLedgerClear(r.d, r.state, h.src.Name))
	}
	for _, q := range stmts {
		if _, err := adapters.ExecSQL(ctx, sess, q); err != nil {
			return nil, err
		}
	}
	// Named by the run: the next run drops it if this one dies with it
	// (dropStaleStages).
	h.landing = sqlgen.HTTPLandingName(h.rel, sqlgen.RunTag(r.res.RunID))
	cols, ok, err := sess.Relation(ctx, h.rel)
	if err != nil {
		return nil, err
	}
	if ok {
		// An empty table holds none of the pages the ledger remembers
		// (a run killed after creating it, a TRUNCATE): like a missing one.
		_, empty, err := sess.Query(ctx, r.d.EmptyQuery([]plan.Relation{h.rel}), 1)
		if err != nil {
			return nil, err
		}
		ok = len(empty) == 0
	}
	if !ok {
		// The ledger describes rows that are gone: forget it, so every
		// page lands again (committed before anything else is written).
		_, err := adapters.ExecSQL(ctx, sess, sqlgen.HTTPLedgerClear(r.d, r.state, h.src.Name))
		return map[string]httpsource.Entry{}, err
	}
	h.exists = true
	h.kinds = map[string]seed.Kind{}
	for _, c := range cols {
		if k, ok := kindOfType(r.d, c.Type); ok && !strings.HasPrefix(c.Name, "_idemc_") {
			h.kinds[c.Name] = k
		}
	}
	_, rows, err := sess.Query(ctx, sqlgen.HTTPLedgerRead(r.d, r.state, h.src.Name), -1)
	if err != nil {
		return nil, err
	}
	prev := map[string]httpsource.Entry{}
	null := func(s string) string {
		if s == "NULL" {
			return ""
		}
		return s
	}
	for _, row := range rows {
		if row[0] == "" {
			h.wm, _ = time.Parse(time.RFC3339Nano, null(row[5]))
			continue
		}
		if h.cache != nil && row[6] != "NULL" {
			h.cache.committed[row[6]] = true
		}
		prev[row[0]] = httpsource.Entry{ETag: null(row[1]), LastModified: null(row[2]), BodyHash: null(row[3]), Next: null(row[4])}
	}
	return prev, nil
}

// kindOfType is the seed kind an engine column type holds, when exactly
// one kind's type is of its family.
func kindOfType(d adapters.Dialect, typ string) (seed.Kind, bool) {
	if k, ok := seed.DecimalOfType(typ); ok {
		return k, true // its bounds, not only its family: decimal(18,2)
	}
	var found []seed.Kind
	for _, k := range seed.Kinds {
		if strings.EqualFold(typ, d.SeedType(k)) {
			return k, true
		}
		if d.SameType(typ, d.SeedType(k)) {
			found = append(found, k)
		}
	}
	if len(found) == 1 {
		return found[0], true
	}
	return "", false
}

// window adds the since parameter to the first page's URL: the committed
// watermark less the overlap, re-read every run; the cutoff is as_of − lag.
func (h *httpLoad) window(first string) (string, error) {
	s := h.src.Since
	if s == nil {
		return first, nil
	}
	h.cutoff = h.r.pl.AsOf.Add(-s.Lag)
	if h.wm.IsZero() {
		return first, nil
	}
	return httpsource.WithParam(first, s.Param, h.wm.Add(-s.Overlap).UTC().Format(time.RFC3339))
}

// progress shows the pages, records and bytes so far on a terminal.
func (h *httpLoad) progress(p *httpsource.Page, bytes int64) {
	r := h.r
	if r.o.Progress == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.o.Progress, "\r\033[K[%d/%d] %s: page %d, %d written, %s", r.done, r.total, h.u.Model, p.Index, h.written, byteSize(bytes))
}
