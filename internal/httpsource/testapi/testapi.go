// Package testapi is a local JSON API for HTTP source tests: it serves a
// set of records paginated in every style idemc reads (Link header, next
// URL in the body, cursor, page number), with ETags and Last-Modified,
// 304s, a since filter, and faults on demand (429 with Retry-After, 500s,
// slow responses, malformed pages). It counts what it was sent, so a test
// can prove a rerun sent conditional requests.
package testapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Epoch is the records' first updated_at and the Last-Modified of an
// unchanged set.
var Epoch = time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)

// API is the fixture server's state. Safe for concurrent use.
type API struct {
	mu       sync.Mutex
	records  []map[string]any
	pageSize int
	modified time.Time
	faults   []fault
	stats    Stats
	// Token, when set, must come as "Authorization: Bearer <Token>".
	Token     string
	onRequest func(n int)
}

// SetToken makes the API require "Authorization: Bearer <token>".
func (a *API) SetToken(token string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.Token = token
}

// OnRequest sets a function called with each request's number (from 1)
// before it is answered (nil: none): the kill trials end idemc there.
func (a *API) OnRequest(f func(n int)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.onRequest = f
}

// Stats count the requests served.
type Stats struct {
	Requests    int `json:"requests"`
	Conditional int `json:"conditional"` // with If-None-Match or If-Modified-Since
	NotModified int `json:"not_modified"`
	Faults      int `json:"faults"`
}

type fault struct {
	status     int
	retryAfter string
	delay      time.Duration
	malformed  bool
	page       int // 0: any page
	left       int
}

// New returns an API serving n records, size per page.
func New(n, size int) *API {
	a := &API{pageSize: size, modified: Epoch}
	for i := 1; i <= n; i++ {
		a.records = append(a.records, map[string]any{
			"id": i, "name": fmt.Sprintf("order %d", i), "amount": float64(i%1000) + 0.25,
			"status": []string{"new", "paid", "shipped"}[i%3], "updated_at": Epoch.Add(time.Duration(i) * time.Minute).Format(time.RFC3339),
			"meta": map[string]any{"channel": "web", "lines": i % 5},
		})
	}
	return a
}

// Start serves a on a local port until the returned stop.
func (a *API) Start() (url string, stop func()) {
	s := httptest.NewServer(a)
	return s.URL, s.Close
}

// Stats returns the counts so far.
func (a *API) Stats() Stats {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.stats
}

// Change changes record id's amount and updated_at (to at), and the
// set's Last-Modified.
func (a *API) Change(id int, at time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.records {
		if r["id"] == id {
			r["amount"] = r["amount"].(float64) + 1
			r["updated_at"] = at.UTC().Format(time.RFC3339)
		}
	}
	a.modified = a.modified.Add(time.Second)
}

// Add appends a record with an extra field (a change of shape).
func (a *API) Add(r map[string]any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.records = append(a.records, r)
	a.modified = a.modified.Add(time.Second)
}

// Fail makes the next n requests (of page, 0 for any) answer status, with
// a Retry-After of retryAfter when not "".
func (a *API) Fail(status, n, page int, retryAfter string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults = append(a.faults, fault{status: status, retryAfter: retryAfter, page: page, left: n})
}

// Slow delays the next n responses by d.
func (a *API) Slow(d time.Duration, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults = append(a.faults, fault{delay: d, left: n})
}

// Malform makes page answer a body that is not JSON, n times.
func (a *API) Malform(page, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.faults = append(a.faults, fault{malformed: true, page: page, left: n})
}

// ServeHTTP serves /<style>/orders with style link, json, cursor, page or
// none, /_stats (the counts as JSON) and /_change?id=N (Change at Epoch
// plus a day).
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/_stats":
		_ = json.NewEncoder(w).Encode(a.Stats())
		return
	case "/_change":
		id, _ := strconv.Atoi(r.URL.Query().Get("id"))
		a.Change(id, Epoch.Add(24*time.Hour))
		return
	}
	style, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/orders")
	if !ok {
		http.NotFound(w, r)
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.stats.Requests++
	if a.onRequest != nil {
		a.onRequest(a.stats.Requests)
	}
	if a.Token != "" && r.Header.Get("Authorization") != "Bearer "+a.Token {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	page := 1
	switch style {
	case "cursor":
		if c := q.Get("cursor"); c != "" {
			page, _ = strconv.Atoi(strings.TrimPrefix(c, "c"))
		}
	default:
		if p := q.Get("page"); p != "" {
			page, _ = strconv.Atoi(p)
		}
	}
	if a.fault(w, page) {
		return
	}
	recs := a.window(q.Get("updated_since"))
	lo, hi := (page-1)*a.pageSize, min(page*a.pageSize, len(recs))
	if style == "none" {
		lo, hi = 0, len(recs)
	}
	items := []map[string]any{}
	if lo < hi {
		items = recs[lo:hi]
	}
	more := hi < len(recs) && style != "none"
	a.respond(w, r, style, page, items, more)
}

// respond writes a page in its style, answering 304 to a matching
// If-None-Match.
func (a *API) respond(w http.ResponseWriter, r *http.Request, style string, page int, items []map[string]any, more bool) {
	next := func(p int) string {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		return "/" + style + "/orders?" + q.Encode()
	}
	body := map[string]any{"data": items}
	switch style {
	case "link":
		if more {
			w.Header().Add("Link", fmt.Sprintf(`</v0/ignored>; rel="prev", <%s>; rel="next"`, next(page+1)))
		}
	case "json":
		if more {
			body["links"] = map[string]any{"next": next(page + 1)}
		} else {
			body["links"] = map[string]any{"next": nil}
		}
	case "cursor":
		if more {
			body["meta"] = map[string]any{"next_cursor": fmt.Sprintf("c%d", page+1)}
		}
	}
	b, _ := json.Marshal(body)
	sum := sha256.Sum256(b)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	if r.Header.Get("If-None-Match") != "" || r.Header.Get("If-Modified-Since") != "" {
		a.stats.Conditional++
	}
	w.Header().Set("ETag", etag)
	w.Header().Set("Last-Modified", a.modified.Format(http.TimeFormat))
	if inm := r.Header.Get("If-None-Match"); inm == etag {
		a.stats.NotModified++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// window is the records updated at or after since (all without it), in
// updated_at order then id.
func (a *API) window(since string) []map[string]any {
	var out []map[string]any
	for _, r := range a.records {
		if since == "" || r["updated_at"].(string) >= since {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i]["updated_at"].(string) < out[j]["updated_at"].(string) })
	return out
}

// fault serves the first matching fault, if any.
func (a *API) fault(w http.ResponseWriter, page int) bool {
	for i := range a.faults {
		f := &a.faults[i]
		if f.left == 0 || f.page != 0 && f.page != page {
			continue
		}
		f.left--
		a.stats.Faults++
		switch {
		case f.delay > 0:
			a.mu.Unlock()
			time.Sleep(f.delay)
			a.mu.Lock()
			return false
		case f.malformed:
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data": [{"id": 1,`))
		default:
			if f.retryAfter != "" {
				w.Header().Set("Retry-After", f.retryAfter)
			}
			http.Error(w, http.StatusText(f.status), f.status)
		}
		return true
	}
	return false
}
