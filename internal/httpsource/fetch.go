// Package httpsource fetches an HTTP source's pages (DESIGN §13,
// docs/http.md): pagination in every supported style, conditional requests
// from the ledger's ETag and Last-Modified, retries that honour
// Retry-After, and the records of each page typed once for every engine.
// It never touches a warehouse: the runner lands each page it yields.
package httpsource

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Paging is how the next page's URL is found: Style "link" (RFC 8288
// rel="next"), "json" (the next URL at Path in the body), "cursor" (the
// cursor at Path, sent as query parameter Param), "page" (Param counts
// pages from 1, until a page has no record) or "none".
type Paging struct {
	Style, Path, Param string
}

// Options configure one source's fetch.
type Options struct {
	URL     string            // the first page, expanded
	Records string            // dotted path to the record array; "" = the body
	Paging  Paging            //
	Headers map[string]string // expanded; never printed
	// Secrets are the expanded values of the ${VAR}s in the URL and
	// headers, by variable name: Redact writes them back as ${VAR}.
	Secrets     map[string]string
	MaxPages    int // pages of this source before the fetch stops with an error
	MaxRequests int // requests (retries included) of this source; 0 = no limit
	// Prev returns what the ledger holds for a page (by Redact(url)).
	Prev func(key string) (Entry, bool)
	// Retries bounds the attempts of one request after the first (default
	// 5); Backoff is the first delay of the exponential backoff (default
	// 500ms), capped at MaxBackoff (default 30s), and MaxRetryAfter caps
	// a server's Retry-After (default 2m).
	Retries                            int
	Backoff, MaxBackoff, MaxRetryAfter time.Duration
	Timeout                            time.Duration // per request (default 30s)
	Client                             *http.Client
	// Sleep waits between attempts (tests count waits instead).
	Sleep func(ctx context.Context, d time.Duration) error
}

// Entry is a page's row in the ledger (idemc_http).
type Entry struct {
	ETag, LastModified, BodyHash string
	Next                         string // the next page's URL as Redact wrote it; "" for the last page
}

// Page is one fetched page.
type Page struct {
	Key     string // Redact(URL): the ledger's key and the URL shown
	Index   int    // 1-based
	Status  int    // 200, or 304 Not Modified
	Entry   Entry  // what the ledger holds for the page after it lands
	Bytes   int
	Records []map[string]any // decoded with json.Number; nil when Unchanged
	// Unchanged: a 304, or a 200 whose body hash is the ledger's: nothing
	// of the page is written.
	Unchanged bool
	Last      bool // no page follows

	next string // the next page's URL as requested (Entry.Next is redacted)
}

// Stats count a fetch.
type Stats struct {
	Requests, Conditional, NotModified, Retries int
	Pages, Records                              int
	Bytes                                       int64
}

// Fetch fetches every page and calls land for each, in order; an error
// from land stops the fetch.
func Fetch(ctx context.Context, o Options, land func(*Page) error) (Stats, error) {
	f := &fetcher{o: o.withDefaults()}
	err := f.run(ctx, land)
	return f.stats, err
}

type fetcher struct {
	o     Options
	stats Stats
}

func (o Options) withDefaults() Options {
	if o.Retries == 0 {
		o.Retries = 5
	}
	if o.Backoff == 0 {
		o.Backoff = 500 * time.Millisecond
	}
	if o.MaxBackoff == 0 {
		o.MaxBackoff = 30 * time.Second
	}
	if o.MaxRetryAfter == 0 {
		o.MaxRetryAfter = 2 * time.Minute
	}
	if o.Timeout == 0 {
		o.Timeout = 30 * time.Second
	}
	if o.Client == nil {
		o.Client = http.DefaultClient
	}
	if o.Sleep == nil {
		o.Sleep = sleep
	}
	if o.MaxPages == 0 {
		o.MaxPages = 10000
	}
	if o.Prev == nil {
		o.Prev = func(string) (Entry, bool) { return Entry{}, false }
	}
	return o
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (f *fetcher) run(ctx context.Context, land func(*Page) error) error {
	seen := map[string]bool{}
	next := f.o.URL
	for i := 1; next != ""; i++ {
		key := f.Redact(next)
		if seen[key] {
			return fmt.Errorf("page %d: %s was already fetched in this run: the API's pagination loops (check next = %q)", i, key, f.o.Paging.Style)
		}
		seen[key] = true
		if i > f.o.MaxPages {
			return fmt.Errorf("more than %d pages (max_pages): stopped before %s; raise max_pages if the API really has more", f.o.MaxPages, key)
		}
		p, err := f.page(ctx, next, i)
		if err != nil {
			return err
		}
		f.stats.Pages++
		f.stats.Records += len(p.Records)
		f.stats.Bytes += int64(p.Bytes)
		p.Last = p.Entry.Next == ""
		if err := land(p); err != nil {
			return err
		}
		next = p.next
	}
	return nil
}

// page fetches one page, conditionally when the ledger knows it.
func (f *fetcher) page(ctx context.Context, u string, index int) (*Page, error) {
	key := f.Redact(u)
	prev, known := f.o.Prev(key)
	cond := known
	if f.o.Paging.Style == "link" && known && prev.Next == "" {
		// The last known page is fetched whole: a page added after it
		// shows only in its Link header, which a 304 need not repeat
		// (RFC 9110 §15.4.5) and an ETag need not cover. Its body hash
		// still keeps an unchanged page from being written.
		cond = false
	}
	resp, body, err := f.get(ctx, u, prev, cond)
	if err != nil {
		return nil, err
	}
	p := &Page{Key: key, Index: index, Status: resp.StatusCode, Bytes: len(body)}
	if resp.StatusCode == http.StatusNotModified {
		f.stats.NotModified++
		p.Entry, p.Unchanged = prev, true
		p.next = f.expand(prev.Next)
		return p, nil
	}
	sum := sha256.Sum256(body)
	p.Entry = Entry{ETag: resp.Header.Get("ETag"), LastModified: resp.Header.Get("Last-Modified"), BodyHash: hex.EncodeToString(sum[:16])}
	var doc any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("page %s: the body is not JSON: %v", key, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("page %s: the body holds more than one JSON value", key)
	}
	recs, err := Records(doc, f.o.Records)
	if err != nil {
		return nil, fmt.Errorf("page %s: %v", key, err)
	}
	nextURL, err := f.nextURL(u, resp, doc, len(recs), index)
	if err != nil {
		return nil, fmt.Errorf("page %s: %v", key, err)
	}
	p.next, p.Entry.Next = nextURL, f.Redact(nextURL)
	if known && prev.BodyHash == p.Entry.BodyHash {
		p.Unchanged = true
		return p, nil
	}
	p.Records = recs
	return p, nil
}

// get sends one request, retrying what can succeed later: 429 and 503
// after their Retry-After, other 5xx and transport errors (timeouts
// included) after a bounded exponential backoff with full jitter. A 4xx
// fails at once.
func (f *fetcher) get(ctx context.Context, u string, prev Entry, known bool) (*http.Response, []byte, error) {
	key := f.Redact(u)
	for attempt := 0; ; attempt++ {
		if f.o.MaxRequests > 0 && f.stats.Requests >= f.o.MaxRequests {
			return nil, nil, fmt.Errorf("stopped before %s: %d requests sent (--max-requests)", key, f.stats.Requests)
		}
		resp, body, err := f.once(ctx, u, prev, known)
		if err == nil && resp.StatusCode < 300 || err == nil && resp.StatusCode == http.StatusNotModified && known {
			return resp, body, nil
		}
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		var wait time.Duration
		var why string
		switch {
		case err != nil && !transient(err):
			return nil, nil, fmt.Errorf("GET %s: %v", key, err)
		case err != nil:
			why = err.Error()
		case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable:
			why = resp.Status
			wait = retryAfter(resp.Header.Get("Retry-After"), time.Now())
		case resp.StatusCode >= 500:
			why = resp.Status
		default:
			return nil, nil, fmt.Errorf("GET %s: %s (a client error is not retried: check url, headers and credentials)%s", key, resp.Status, f.redactText(snippet(body)))
		}
		if attempt >= f.o.Retries {
			return nil, nil, fmt.Errorf("GET %s: %s, after %d attempts", key, why, attempt+1)
		}
		if wait == 0 {
			// Full jitter (AWS Architecture Blog, "Exponential Backoff
			// and Jitter"): uniform in [d/2, d] keeps a floor.
			d := min(f.o.Backoff<<attempt, f.o.MaxBackoff)
			wait = d/2 + rand.N(d/2+1)
		}
		wait = min(wait, f.o.MaxRetryAfter)
		f.stats.Retries++
		if err := f.o.Sleep(ctx, wait); err != nil {
			return nil, nil, err
		}
	}
}

func (f *fetcher) once(ctx context.Context, u string, prev Entry, known bool) (*http.Response, []byte, error) {
	ctx, cancel := context.WithTimeout(ctx, f.o.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("GET %s: %v", f.Redact(u), f.redactErr(err))
	}
	req.Header.Set("Accept", "application/json")
	for k, v := range f.o.Headers {
		req.Header.Set(k, v)
	}
	if known {
		if prev.ETag != "" {
			req.Header.Set("If-None-Match", prev.ETag)
		}
		if prev.LastModified != "" {
			req.Header.Set("If-Modified-Since", prev.LastModified)
		}
		if prev.ETag != "" || prev.LastModified != "" {
			f.stats.Conditional++
		}
	}
	f.stats.Requests++
	resp, err := f.o.Client.Do(req)
	if err != nil {
		if transient(err) {
			return nil, nil, fmt.Errorf("%w", &redacted{err: err, msg: f.redactErr(err).Error()})
		}
		return nil, nil, f.redactErr(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, &redacted{err: err, msg: f.redactErr(err).Error()}
	}
	return resp, body, nil
}

// transient reports whether a transport error can pass on a retry: a
// timeout, a refused, reset or dropped connection, a cut body. A bad URL
// or a TLS certificate error cannot.
func transient(err error) bool {
	var ne net.Error
	var op *net.OpError
	return errors.As(err, &ne) && ne.Timeout() || errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// redactErr removes secrets from a transport error (it quotes the URL).
func (f *fetcher) redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return fmt.Errorf("%s %s: %v", ue.Op, f.Redact(ue.URL), f.redactText(ue.Err.Error()))
	}
	return errors.New(f.redactText(err.Error()))
}

// retryAfter reads a Retry-After value: seconds or an HTTP date (RFC 9110
// §10.2.3); 0 when absent or unreadable (the backoff applies).
func retryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return max(time.Duration(s)*time.Second, time.Millisecond)
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(t.Sub(now), time.Millisecond)
	}
	return 0
}

// redacted is a transport error whose text has no secret and that still
// unwraps to its cause (for transient).
type redacted struct {
	err error
	msg string
}

func (e *redacted) Error() string { return e.msg }
func (e *redacted) Unwrap() error { return e.err }

func snippet(body []byte) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return ": " + s
}
